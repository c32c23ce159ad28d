import { useEffect, useState, type FormEvent } from 'react';
import { SUBSCRIBER_SEARCH_MAX_LENGTH, SUBSCRIBER_STATUSES, type Segment, type SubscriberStatus } from '../../contract/owner-api.ts';
import { formatDate, formatNumber, STATUS_LABELS, type SiteApi } from './api.ts';
import { useLoad } from './useLoad.ts';

const PAGE_SIZE = 50;

/** The segments a subscriber is in, with a button to take them out of each and a choice of segments to add them to. */
function Memberships(props: {
  api: SiteApi;
  id: string;
  current: string[];
  segments: Segment[];
  onError(error: unknown): string;
  onChanged(): void;
}) {
  const { api, id, current } = props;
  const [adding, setAdding] = useState('');
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const others = props.segments.filter((segment) => segment.createdAt !== null && !current.includes(segment.sid));

  const change = async (sid: string, add: boolean) => {
    setMessage(null);
    try {
      if (add) await api.addMember(sid, id);
      else await api.removeMember(sid, id);
      setMessage({ text: add ? `Added to ${sid}.` : `Removed from ${sid}.`, error: false });
      setAdding('');
      props.onChanged();
    } catch (failure) {
      setMessage({ text: props.onError(failure), error: true });
    }
  };

  return (
    <section aria-labelledby="memberships-title">
      <h3 id="memberships-title">Segments</h3>
      {current.length === 0 ? (
        <p className="muted">In no segment.</p>
      ) : (
        <ul className="memberships">
          {current.map((sid) => (
            <li key={sid} data-member-of={sid}>
              <span>{sid}</span>
              <button type="button" className="secondary small" onClick={() => change(sid, false)} aria-label={`Remove from ${sid}`}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {others.length > 0 && (
        <div className="filters">
          <div className="field">
            <label htmlFor="add-to-segment">Add to segment</label>
            <select id="add-to-segment" value={adding} onChange={(event) => setAdding(event.target.value)}>
              <option value="">Choose a segment</option>
              {others.map((segment) => (
                <option key={segment.sid} value={segment.sid}>
                  {segment.name === segment.sid ? segment.sid : `${segment.name} (${segment.sid})`}
                </option>
              ))}
            </select>
          </div>
          <div className="buttons align-end">
            <button type="button" disabled={!adding} onClick={() => change(adding, true)}>
              Add
            </button>
          </div>
        </div>
      )}
      {message && (
        <p className={message.error ? 'error' : 'ok'} role="status">
          {message.text}
        </p>
      )}
    </section>
  );
}

function SubscriberDetail({
  api,
  id,
  onError,
  onDeleted,
}: {
  api: SiteApi;
  id: string;
  onError(error: unknown): string;
  onDeleted(id: string): void;
}) {
  const detail = useLoad(() => api.subscriber(id), onError, [api, id]);
  const segments = useLoad(() => api.segments(), onError, [api]);
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  const download = async () => {
    setMessage(null);
    try {
      const data = await api.exportSubscriber(id);
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `subscriber-${id}.json`;
      document.body.append(link);
      link.click();
      link.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setMessage('The export was downloaded.');
    } catch (failure) {
      setMessage(onError(failure));
    }
  };

  const remove = async () => {
    try {
      await api.deleteSubscriber(id);
      onDeleted(id);
    } catch (failure) {
      setConfirming(false);
      setMessage(onError(failure));
    }
  };

  const value = detail.value;
  return (
    <section className="card" aria-labelledby="detail-title">
      <p>
        <a href="#/subscribers">← All subscribers</a>
      </p>
      <h2 id="detail-title">Subscriber {id}</h2>
      {detail.error && (
        <p className="error" role="alert">
          {detail.error}
        </p>
      )}
      {value && (
        <>
          <dl className="details">
            <dt>Status</dt>
            <dd>
              <span className={`status status-${value.subscriber.status}`}>{STATUS_LABELS[value.subscriber.status]}</span>
            </dd>
            <dt>Browser</dt>
            <dd>{value.subscriber.browserType ?? '—'}</dd>
            <dt>Language</dt>
            <dd>{value.subscriber.language ?? '—'}</dd>
            <dt>Time zone</dt>
            <dd>{value.subscriber.timezone ?? '—'}</dd>
            <dt>Subscribed on</dt>
            <dd>{value.subscriber.subscriptionPageUrl ?? '—'}</dd>
            <dt>Subscribed</dt>
            <dd>{formatDate(value.subscriber.createdAt)}</dd>
            <dt>Last sync</dt>
            <dd>{formatDate(value.subscriber.lastSyncAt)}</dd>
            <dt>Tags</dt>
            <dd>
              {Object.keys(value.tags).length
                ? Object.entries(value.tags)
                    .map(([key, tag]) => `${key}=${tag}`)
                    .join(', ')
                : '—'}
            </dd>
            <dt>Custom dimensions</dt>
            <dd>
              {Object.keys(value.dimensions).length
                ? Object.entries(value.dimensions)
                    .map(([key, dimension]) => `${key}=${dimension}`)
                    .join(', ')
                : '—'}
            </dd>
            <dt>Notifications</dt>
            <dd>
              {value.deliveries.length} received
              {value.events.some((event) => event.kind === 'clicked')
                ? `, ${value.events.filter((event) => event.kind === 'clicked').length} clicked`
                : ''}
            </dd>
          </dl>
          <Memberships
            api={api}
            id={id}
            current={value.segments}
            segments={segments.value ?? []}
            onError={onError}
            onChanged={() => {
              detail.reload();
              segments.reload();
            }}
          />
          <h3>Privacy requests</h3>
          <p className="muted">
            Export gives the subscriber everything stored about them; delete erases it all (tags, segments, events, deliveries).
          </p>
          <div className="buttons">
            <button type="button" onClick={download}>
              Export data (JSON)
            </button>
            {confirming ? (
              <>
                <button type="button" className="danger" onClick={remove}>
                  Delete {id} permanently
                </button>
                <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                  Keep
                </button>
              </>
            ) : (
              <button type="button" className="danger" onClick={() => setConfirming(true)}>
                Delete subscriber
              </button>
            )}
          </div>
          {message && <p role="status">{message}</p>}
        </>
      )}
    </section>
  );
}

/** Straight to page n of a long list: the server reads that page only, however deep. */
function PageJump({ offset, total, onJump }: { offset: number; total: number; onJump(offset: number): void }) {
  const pages = Math.ceil(total / PAGE_SIZE);
  const [text, setText] = useState(String(offset / PAGE_SIZE + 1));
  useEffect(() => setText(String(offset / PAGE_SIZE + 1)), [offset]);
  const jump = (event: FormEvent) => {
    event.preventDefault();
    const page = Math.min(pages, Math.max(1, Math.trunc(Number(text)) || 1));
    setText(String(page));
    onJump((page - 1) * PAGE_SIZE);
  };
  return (
    <form className="page-jump" onSubmit={jump}>
      <label htmlFor="page-number">Page</label>
      <input id="page-number" type="number" min={1} max={pages} value={text} onChange={(event) => setText(event.target.value)} />
      <span>of {formatNumber(pages)}</span>
      <button type="submit" className="secondary">
        Go
      </button>
    </form>
  );
}

export function Subscribers({ api, onError, selected }: { api: SiteApi; onError(error: unknown): string; selected?: string }) {
  const [searchText, setSearchText] = useState('');
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<SubscriberStatus | ''>('');
  const [segment, setSegment] = useState('');
  const [offset, setOffset] = useState(0);
  const segments = useLoad(() => api.segments(), onError, [api]);
  const [notice, setNotice] = useState<string | null>(null);

  // a search runs when typing pauses, from the first page; a page chosen meanwhile without typing stays
  useEffect(() => {
    if (searchText.trim() === search) return;
    const timer = window.setTimeout(() => {
      setSearch(searchText.trim());
      setOffset(0);
    }, 300);
    return () => window.clearTimeout(timer);
  }, [searchText, search]);

  const page = useLoad(
    () => api.subscribers({ limit: PAGE_SIZE, offset, search, status: status || undefined, segment, order: 'newest' }),
    onError,
    [api, offset, search, status, segment],
  );

  if (selected) {
    return (
      <div className="screen">
        <h1>Subscribers</h1>
        <SubscriberDetail
          api={api}
          id={selected}
          onError={onError}
          onDeleted={(id) => {
            setNotice(`Subscriber ${id} and everything stored about them were deleted.`);
            page.reload();
            window.location.hash = '#/subscribers';
          }}
        />
      </div>
    );
  }

  const value = page.value;
  return (
    <div className="screen">
      <h1>Subscribers</h1>
      {notice && (
        <p className="ok" role="status">
          {notice}
        </p>
      )}
      <section className="card">
        <form className="filters" role="search" onSubmit={(event) => event.preventDefault()}>
          <div className="field">
            <label htmlFor="subscriber-search">Search</label>
            <input
              id="subscriber-search"
              type="search"
              placeholder="id, uuid, endpoint, language or browser"
              value={searchText}
              maxLength={SUBSCRIBER_SEARCH_MAX_LENGTH}
              onChange={(event) => setSearchText(event.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="subscriber-status">Status</label>
            <select
              id="subscriber-status"
              value={status}
              onChange={(event) => {
                setStatus(event.target.value as SubscriberStatus | '');
                setOffset(0);
              }}
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
            <select
              id="subscriber-segment"
              value={segment}
              onChange={(event) => {
                setSegment(event.target.value);
                setOffset(0);
              }}
            >
              <option value="">Any</option>
              {(segments.value ?? [])
                .filter((entry) => entry.createdAt !== null)
                .map((entry) => (
                  <option key={entry.sid} value={entry.sid}>
                    {entry.sid} ({formatNumber(entry.members)})
                  </option>
                ))}
            </select>
          </div>
        </form>
        {page.error && (
          <p className="error" role="alert">
            {page.error}
          </p>
        )}
        {value && (
          <>
            <p className="muted" aria-live="polite" data-total={value.total}>
              {value.total === 0
                ? 'No subscriber matches.'
                : `${formatNumber(value.offset + 1)}–${formatNumber(value.offset + value.subscribers.length)} of ${formatNumber(value.total)}`}
            </p>
            {value.subscribers.length > 0 && (
              <div className="table-wrap">
                <table className={page.loading ? 'loading' : undefined}>
                  <thead>
                    <tr>
                      <th scope="col">Subscriber</th>
                      <th scope="col">Status</th>
                      <th scope="col">Browser</th>
                      <th scope="col">Language</th>
                      <th scope="col">Segments</th>
                      <th scope="col">Tags</th>
                      <th scope="col">Last sync</th>
                    </tr>
                  </thead>
                  <tbody>
                    {value.subscribers.map((subscriber) => (
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
                        <td>{formatDate(subscriber.lastSyncAt ?? subscriber.createdAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <div className="buttons pager">
              <button
                type="button"
                className="secondary"
                disabled={offset === 0}
                onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
              >
                Previous page
              </button>
              <button
                type="button"
                className="secondary"
                disabled={offset + PAGE_SIZE >= value.total}
                onClick={() => setOffset(offset + PAGE_SIZE)}
              >
                Next page
              </button>
              {value.total > PAGE_SIZE && <PageJump offset={offset} total={value.total} onJump={setOffset} />}
            </div>
          </>
        )}
      </section>
    </div>
  );
}
