// The compiler's condition language is checked by the provider (the dashboard imports only contract/).
import { formatConditionError } from '../../../contract/conditions.ts';
import type { ConditionCheckState } from '../useConditionCheck.ts';

/** The provider's verdict on the condition being typed (it checks with the compiler `push-kit build` uses). */
export function ConditionCheck({ source, check }: { source: string; check: ConditionCheckState }) {
  if (check.kind === 'empty')
    return (
      <p id="condition-status" className="muted">
        Optional. Example: path startsWith "/blog" and visitCount &gt; 2
      </p>
    );
  if (check.kind === 'checking')
    return (
      <p id="condition-status" className="muted" role="status">
        Checking…
      </p>
    );
  if (check.kind === 'unavailable')
    return (
      <p id="condition-status" className="error" role="status">
        The condition cannot be checked now: {check.message}
      </p>
    );
  if (check.reply.ok) {
    return (
      <p id="condition-status" className="ok" role="status">
        The condition is valid.
      </p>
    );
  }
  const { error } = check.reply;
  // the source line with a caret under the column the parser stopped at
  const lineStart = source.lastIndexOf('\n', error.column - 2) + 1;
  const lineEnd = source.indexOf('\n', lineStart);
  const line = source.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
  const column = error.column - lineStart;
  return (
    <div id="condition-status" className="error" role="status">
      <p data-position={error.column}>{formatConditionError(error)}</p>
      <pre className="caret" aria-hidden="true">
        {line}
        {'\n'}
        {' '.repeat(Math.max(0, column - 1))}^
      </pre>
    </div>
  );
}
