import type { SubscriberListItem } from '../../../contract/owner-api.ts';
import { Time } from '../clock/index.ts';
import { STATUS_LABELS } from '../api.ts';
import { FiguresTable, type Column } from '../FiguresTable.tsx';

const COLUMNS: Column[] = ['Subscriber', 'Status', 'Browser', 'Language', 'Segments', 'Tags', 'Last sync'].map((heading) => ({ heading }));

/** A page of subscribers, each linking to their detail; dimmed while the next page loads. */
export function SubscriberTable({ subscribers, loading }: { subscribers: SubscriberListItem[]; loading: boolean }) {
  return (
    <FiguresTable columns={COLUMNS} className={loading ? 'loading' : undefined}>
      {subscribers.map((subscriber) => (
        <tr key={subscriber.id}>
          <td>
            <a href={`#/subscribers/${encodeURIComponent(subscriber.id)}`} className="mono">
              {subscriber.id}
            </a>
          </td>
          <td>
            <span className={`status status-${subscriber.status}`}>{STATUS_LABELS[subscriber.status]}</span>
          </td>
          <td>{subscriber.browserType ?? '—'}</td>
          <td>{subscriber.language ?? '—'}</td>
          <td>{subscriber.segments.join(', ') || '—'}</td>
          <td>
            {Object.entries(subscriber.tags)
              .map(([key, tag]) => `${key}=${tag}`)
              .join(', ') || '—'}
          </td>
          <td>
            <Time value={subscriber.lastSyncAt ?? subscriber.createdAt} />
          </td>
        </tr>
      ))}
    </FiguresTable>
  );
}
