// Why deliveries failed, as `push-kit send` and `push-kit campaigns show` print it: one line per reason with its
// count, and under a reason that is the owner's to fix where the installed package's docs say how.
import { failureGroupLine, type DeliveryFailureGroup } from '../contract/delivery-failures.ts';
import { helpInShippedDocs } from '../server/dashboard/index.ts';

export function failureLines(failures: readonly DeliveryFailureGroup[]): string[] {
  if (failures.length === 0) return [];
  return [
    'failures by reason:',
    ...failures.flatMap((group) => [
      `  ${failureGroupLine(group)}`,
      ...(group.docsUrl ? [`    how to fix it: ${helpInShippedDocs(group.docsUrl)}`] : []),
    ]),
  ];
}
