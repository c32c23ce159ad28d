import { useState } from 'react';
import type { Segment } from '../../../contract/owner-api.ts';
import { formatNumber, type SiteApi } from '../api.ts';
import { ConfirmDelete } from '../ConfirmDelete.tsx';
import { FiguresTable, type Column } from '../FiguresTable.tsx';
import { describeReach } from './reach.ts';

const COLUMNS: Column[] = [
  { heading: 'Segment' },
  { heading: 'Condition' },
  { heading: 'Where it runs' },
  { heading: 'Can receive', numeric: true },
  { heading: <span className="visually-hidden">Actions</span> },
];

function whereItRuns(segment: Segment): string {
  if (segment.configCondition !== null) return 'site config (push.js)';
  if (segment.condition) return 'not in push.js yet';
  return 'added by visitors or here';
}

/** The site's segments with their members; a stored one can be deleted, after a confirmation. */
export function SegmentList(props: {
  api: SiteApi;
  segments: Segment[] | null;
  error: string | null;
  onError(error: unknown): string;
  onChanged(): void;
}) {
  const { segments } = props;
  const [message, setMessage] = useState<string | null>(null);

  const remove = async (segmentId: string) => {
    try {
      await props.api.deleteSegment(segmentId);
      setMessage(`Segment ${segmentId} deleted.`);
      props.onChanged();
    } catch (failure) {
      setMessage(props.onError(failure));
    }
  };

  return (
    <section className="card" aria-labelledby="segments-title">
      <h3 id="segments-title">Browser segments of this site</h3>
      {props.error && (
        <p className="error" role="alert">
          {props.error}
        </p>
      )}
      {message && <p role="status">{message}</p>}
      {segments && segments.length === 0 && <p className="muted">No browser segment yet.</p>}
      {segments && segments.length > 0 && (
        <FiguresTable columns={COLUMNS}>
          {segments.map((segment) => (
            <tr key={segment.sid} data-sid={segment.sid}>
              <td>
                <strong>{segment.sid}</strong>
                {segment.name !== segment.sid && <div className="muted">{segment.name}</div>}
              </td>
              <td>
                <code>{segment.configCondition ?? segment.condition ?? '—'}</code>
              </td>
              <td>{whereItRuns(segment)}</td>
              <td className="num" data-members={segment.members} data-reachable={segment.reachable}>
                <strong>{formatNumber(segment.reachable)}</strong>
                <div className="muted">{describeReach(segment.members, segment.reachable)}</div>
              </td>
              <td>
                {segment.createdAt !== null && (
                  <span className="buttons">
                    <ConfirmDelete name={segment.sid} label={`Delete segment ${segment.sid}`} onConfirm={() => remove(segment.sid)} />
                  </span>
                )}
              </td>
            </tr>
          ))}
        </FiguresTable>
      )}
    </section>
  );
}
