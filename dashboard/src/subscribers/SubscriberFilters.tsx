import {
  SUBSCRIBER_SEARCH_MAX_LENGTH,
  SUBSCRIBER_STATUSES,
  type Segment,
  type SubscriberOrder,
  type SubscriberStatus,
} from '../../../contract/owner-api.ts';
import { formatNumber, STATUS_LABELS } from '../api.ts';

const ORDER_LABELS: Record<SubscriberOrder, string> = {
  newest: 'Newest subscribers first',
  oldest: 'Oldest subscribers first',
  lastSeen: 'Last seen first',
};

/** The search box, the status and segment filters and the order above the subscriber list. */
export function SubscriberFilters(props: {
  searchText: string;
  status: SubscriberStatus | '';
  segment: string;
  segments: Segment[];
  onSearchText(text: string): void;
  onStatus(status: SubscriberStatus | ''): void;
  onSegment(sid: string): void;
  order: SubscriberOrder;
  onOrder(order: SubscriberOrder): void;
}) {
  return (
    <form className="filters" role="search" onSubmit={(event) => event.preventDefault()}>
      <div className="field">
        <label htmlFor="subscriber-search">Search</label>
        <input
          id="subscriber-search"
          type="search"
          placeholder="id, language, browser, time zone or tag (plan=pro)"
          value={props.searchText}
          maxLength={SUBSCRIBER_SEARCH_MAX_LENGTH}
          onChange={(event) => props.onSearchText(event.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="subscriber-status">Status</label>
        <select
          id="subscriber-status"
          value={props.status}
          onChange={(event) => props.onStatus(event.target.value as SubscriberStatus | '')}
        >
          <option value="">Any</option>
          {SUBSCRIBER_STATUSES.map((entry) => (
            <option key={entry} value={entry}>
              {STATUS_LABELS[entry]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="subscriber-segment">In segment</label>
        <select id="subscriber-segment" value={props.segment} onChange={(event) => props.onSegment(event.target.value)}>
          <option value="">Any</option>
          {props.segments
            .filter((entry) => entry.createdAt !== null)
            .map((entry) => (
              <option key={entry.sid} value={entry.sid}>
                {entry.sid} ({formatNumber(entry.members)})
              </option>
            ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="subscriber-order">Order</label>
        <select id="subscriber-order" value={props.order} onChange={(event) => props.onOrder(event.target.value as SubscriberOrder)}>
          {(Object.keys(ORDER_LABELS) as SubscriberOrder[]).map((entry) => (
            <option key={entry} value={entry}>
              {ORDER_LABELS[entry]}
            </option>
          ))}
        </select>
      </div>
    </form>
  );
}
