// The compiler's condition language is checked by the provider (the dashboard imports only contract/).
import type { ReactNode } from 'react';
import { formatConditionError, type ConditionCheckReply } from '../../../contract/conditions.ts';
import type { RuleCheckState } from '../useConditionCheck.ts';

type CheckReply = ConditionCheckReply | { ok: true };

/**
 * The provider's verdict on the condition being typed (it checks with the compiler `push-kit build` uses, or an
 * audience rule with its SQL compiler). `id` is what the text field is described by; `valid` what a good one says.
 */
export function ConditionCheck<Reply extends CheckReply>({
  source,
  check,
  id = 'condition-status',
  empty = <>Optional. Example: path startsWith "/blog" and visitCount &gt; 2</>,
  valid = () => 'The condition is valid.',
}: {
  source: string;
  check: RuleCheckState<Reply>;
  id?: string;
  empty?: ReactNode;
  valid?: (reply: Extract<Reply, { ok: true }>) => ReactNode;
}) {
  if (check.kind === 'empty')
    return (
      <p id={id} className="muted">
        {empty}
      </p>
    );
  if (check.kind === 'checking')
    return (
      <p id={id} className="muted" role="status">
        Checking…
      </p>
    );
  if (check.kind === 'unavailable')
    return (
      <p id={id} className="error" role="status">
        The condition cannot be checked now: {check.message}
      </p>
    );
  if (check.reply.ok) {
    return (
      <p id={id} className="ok" role="status">
        {valid(check.reply as Extract<Reply, { ok: true }>)}
      </p>
    );
  }
  const { error } = check.reply as Extract<ConditionCheckReply, { ok: false }>;
  // the source line with a caret under the column the parser stopped at
  const lineStart = source.lastIndexOf('\n', error.column - 2) + 1;
  const lineEnd = source.indexOf('\n', lineStart);
  const line = source.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
  const column = error.column - lineStart;
  return (
    <div id={id} className="error" role="status">
      <p data-position={error.column}>{formatConditionError(error)}</p>
      <pre className="caret" aria-hidden="true">
        {line}
        {'\n'}
        {' '.repeat(Math.max(0, column - 1))}^
      </pre>
    </div>
  );
}
