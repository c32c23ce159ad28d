// Why an import refuses a row: one keyed catalogue (the report carries the code beside the reason), worded as
// the sync call words the same checks, each reason starting with the column at fault.
import { defineCatalogue, type DetailsOf } from '../../contract/catalogue.ts';
import { IMPORT_NEW_SEGMENTS_MAX, IMPORT_SEGMENTS_PER_ROW } from '../../contract/imports.ts';
import { SEGMENT_ID_RULE } from '../../contract/ids.ts';

const problems = {
  E_ROW_MISSING: ({ column }: { column: string }) => `${column}: is required`,
  E_ROW_ENDPOINT: ({ problem }: { problem: string }) => `endpoint: ${problem}`,
  E_ROW_PUSH_SERVICE: ({ origin }: { origin: string }) => `endpoint: ${origin} is not a push service this provider sends to`,
  E_ROW_KEY: ({ column, problem }: { column: string; problem: string }) => `${column}: ${problem}`,
  E_ROW_FIELD: ({ column, problem }: { column: string; problem: string }) => `${column}: ${problem}`,
  E_ROW_TAGS: ({ problem }: { problem: string }) => `tags: ${problem}`,
  E_ROW_SEGMENTS: ({ problem }: { problem: string }) => `segments: ${problem}`,
  E_ROW_SEGMENT_ID: ({ sid }: { sid: string }) => `segments: "${sid}" ${SEGMENT_ID_RULE}`,
  E_ROW_SEGMENTS_MANY: () => `segments: at most ${IMPORT_SEGMENTS_PER_ROW} per row`,
  E_ROW_NEW_SEGMENTS: () => `segments: this import would create more than ${IMPORT_NEW_SEGMENTS_MAX} segments; create them first`,
  E_ROW_NOT_WEB_PUSH: ({ deviceType }: { deviceType: string }) =>
    `device_type: ${deviceType} is not a web push subscription (OneSignal's web push types are 5, 8 and 17)`,
  E_ROW_CSV: ({ problem }: { problem: string }) => `row: ${problem}`,
  E_ROW_JSON: ({ problem }: { problem: string }) => `line: not a JSON object (${problem})`,
};

export const IMPORT_PROBLEMS = defineCatalogue(problems);
export type ImportProblemCode = keyof typeof problems;

/** A refused row, before it has a line number. */
export interface RowProblem {
  code: ImportProblemCode;
  reason: string;
}

export function rowProblem<C extends ImportProblemCode>(code: C, ...details: DetailsOf<typeof problems, C>): RowProblem {
  return { code, reason: IMPORT_PROBLEMS.message(code, ...details) };
}
