import { useState } from 'react';
import { ConfirmDelete } from '../ConfirmDelete.tsx';
import type { Audience } from '../../../contract/audiences.ts';
import { formatNumber, type SiteApi } from '../api.ts';
import { Time } from '../clock/index.ts';
import { FiguresTable, type Column } from '../FiguresTable.tsx';
import { describeReach } from './reach.ts';

const COLUMNS: Column[] = [
  { heading: 'Audience' },
  { heading: 'Rule' },
  { heading: 'Can receive', numeric: true },
  { heading: 'Created' },
  { heading: <span className="visually-hidden">Actions</span> },
];

/** The site's audiences, each counted now: who matches and who of them a campaign reaches. */
export function AudienceList(props: { api: SiteApi; audiences: Audience[]; onError(error: unknown): string; onChanged(): void }) {
  const [message, setMessage] = useState<string | null>(null);
  const remove = async (audienceId: string) => {
    try {
      await props.api.deleteAudience(audienceId);
      setMessage(`Audience ${audienceId} deleted.`);
      props.onChanged();
    } catch (failure) {
      setMessage(props.onError(failure));
    }
  };
  return (
    <>
      {message && <p role="status">{message}</p>}
      {props.audiences.length === 0 ? (
        <p className="muted">No audience yet: create one below, then send to it from "Send a notification".</p>
      ) : (
        <FiguresTable columns={COLUMNS}>
          {props.audiences.map((audience) => (
            <tr key={audience.id} data-audience={audience.id}>
              <td>
                <strong>{audience.name}</strong>
                {audience.name !== audience.id && <div className="muted">{audience.id}</div>}
              </td>
              <td>
                <code>{audience.condition}</code>
              </td>
              <td className="num" data-members={audience.members} data-reachable={audience.reachable}>
                <strong>{formatNumber(audience.reachable)}</strong>
                <div className="muted">{describeReach(audience.members, audience.reachable)}</div>
              </td>
              <td>
                <Time value={audience.createdAt} />
              </td>
              <td>
                <span className="buttons">
                  <ConfirmDelete name={audience.id} label={`Delete audience ${audience.id}`} onConfirm={() => remove(audience.id)} />
                </span>
              </td>
            </tr>
          ))}
        </FiguresTable>
      )}
    </>
  );
}
