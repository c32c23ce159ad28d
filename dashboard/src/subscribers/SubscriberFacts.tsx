import type { SubscriberExport } from '../../../contract/owner-api.ts';
import { Time } from '../clock/index.ts';
import { STATUS_LABELS } from '../api.ts';
import { DeliveryFailures, LastFailure } from '../DeliveryFailures.tsx';

const pairs = (entries: Record<string, string>) =>
  Object.keys(entries).length
    ? Object.entries(entries)
        .map(([key, value]) => `${key}=${value}`)
        .join(', ')
    : '—';

/** What is stored about one subscriber: status, browser, where and when they subscribed, tags, notifications. */
export function SubscriberFacts({ detail }: { detail: SubscriberExport }) {
  const { subscriber } = detail;
  const clicked = detail.events.filter((event) => event.kind === 'clicked').length;
  return (
    <dl className="details">
      <dt>Status</dt>
      <dd>
        <span className={`status status-${subscriber.status}`}>{STATUS_LABELS[subscriber.status]}</span>
      </dd>
      <dt>Browser</dt>
      <dd>{subscriber.browserType ?? '—'}</dd>
      <dt>Language</dt>
      <dd>{subscriber.language ?? '—'}</dd>
      <dt>Time zone</dt>
      <dd>{subscriber.timezone ?? '—'}</dd>
      <dt>Subscribed on</dt>
      <dd>{subscriber.subscriptionPageUrl ?? '—'}</dd>
      <dt>Subscribed</dt>
      <dd>
        <Time value={subscriber.createdAt} />
      </dd>
      <dt>Last sync</dt>
      <dd>
        <Time value={subscriber.lastSyncAt} />
      </dd>
      <dt>Tags</dt>
      <dd>{pairs(detail.tags)}</dd>
      <dt>Custom dimensions</dt>
      <dd>{pairs(detail.dimensions)}</dd>
      <dt>Notifications</dt>
      <dd>
        {detail.received} received
        {clicked > 0 ? `, ${clicked} clicked` : ''}
      </dd>
      <dt>Last failure</dt>
      <dd>
        <LastFailure failure={detail.lastFailure} />
        <DeliveryFailures failures={detail.failures} label="Failures by reason" />
      </dd>
    </dl>
  );
}
