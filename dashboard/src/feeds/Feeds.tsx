// The site's RSS/Atom feeds (docs/feeds.md): each with its audience, interval and mode, when it was last polled
// and why it last failed, and what it has sent; removal for editors; and a small form to add one.
import { useState, type FormEvent } from 'react';
import { formatDate, formatNumber, type SiteApi } from '../api.ts';
import { Time } from '../clock/index.ts';
import { ConfirmDelete } from '../ConfirmDelete.tsx';
import { FiguresTable } from '../FiguresTable.tsx';
import { useLoad } from '../useLoad.ts';
import {
  FEED_DEFAULT_INTERVAL_MINUTES,
  FEED_MIN_INTERVAL_MINUTES,
  FEED_URL_MAX_LENGTH,
  type Feed,
  type FeedMode,
} from '../../../contract/feeds.ts';

const COLUMNS = [{ heading: 'Feed' }, { heading: 'Sends' }, { heading: 'Last poll' }, { heading: 'Sent', numeric: true }, { heading: '' }];

export function Feeds({ api, onError, canEdit }: { api: SiteApi; onError(error: unknown): string; canEdit: boolean }) {
  const feeds = useLoad(() => api.feeds(), onError, [api]);
  const [message, setMessage] = useState<string | null>(null);

  const remove = async (feed: Feed) => {
    setMessage(null);
    try {
      await api.removeFeed(feed.feedId);
      setMessage(`Feed ${feed.url} removed.`);
      feeds.reload();
    } catch (failure) {
      setMessage(onError(failure));
    }
  };

  return (
    <div className="screen">
      <h1>Feeds</h1>
      <div className="columns">
        <section className="card" aria-labelledby="feeds-title">
          <h2 id="feeds-title">Feeds of this site</h2>
          {feeds.error && (
            <p className="error" role="alert">
              {feeds.error}
            </p>
          )}
          {message && <p role="status">{message}</p>}
          {feeds.value && feeds.value.length === 0 && (
            <p className="muted">No feed yet: new items of a feed you add are sent as notifications.</p>
          )}
          {feeds.value && feeds.value.length > 0 && (
            <FiguresTable columns={COLUMNS}>
              {feeds.value.map((feed) => (
                <tr key={feed.feedId} data-feed={feed.feedId} data-failing={feed.lastError ? 'true' : undefined}>
                  <td>
                    <strong className="mono">{feed.url}</strong>
                  </td>
                  <td>
                    {feed.mode === 'digest' ? 'A digest' : 'Each item'} to {feed.segment ? `segment ${feed.segment}` : 'everyone'}, every{' '}
                    {feed.intervalMinutes} min
                  </td>
                  <td>
                    {feed.lastPolledAt ? formatDate(feed.lastPolledAt) : 'Not yet'}
                    {feed.lastError && (
                      <div className="error" role="alert">
                        Failed <Time value={feed.lastErrorAt} />: {feed.lastError}
                      </div>
                    )}
                  </td>
                  <td className="num">
                    {formatNumber(feed.itemsSent)} <span className="muted">of {formatNumber(feed.itemsSeen)}</span>
                  </td>
                  <td>
                    {canEdit && (
                      <span className="buttons">
                        <ConfirmDelete verb="Remove" name={feed.url} label={`Remove feed ${feed.url}`} onConfirm={() => remove(feed)} />
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </FiguresTable>
          )}
        </section>
        {canEdit && <AddFeedForm api={api} onError={onError} onAdded={feeds.reload} />}
      </div>
    </div>
  );
}

/** A new feed: its URL, audience, interval and mode; its first poll sends nothing of what it already has. */
function AddFeedForm({ api, onError, onAdded }: { api: SiteApi; onError(error: unknown): string; onAdded(): void }) {
  const [url, setUrl] = useState('');
  const [segment, setSegment] = useState('');
  const [interval, setIntervalText] = useState(String(FEED_DEFAULT_INTERVAL_MINUTES));
  const [mode, setMode] = useState<FeedMode>('each');
  const [error, setError] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);

  const add = async (submitted: FormEvent) => {
    submitted.preventDefault();
    setError(null);
    setAdded(null);
    const minutes = Number(interval);
    if (!Number.isInteger(minutes) || minutes < FEED_MIN_INTERVAL_MINUTES) {
      setError(`The interval is a whole number of minutes, at least ${FEED_MIN_INTERVAL_MINUTES}.`);
      return;
    }
    try {
      const feed = await api.addFeed({
        url: url.trim(),
        intervalMinutes: minutes,
        mode,
        ...(segment.trim() ? { segment: segment.trim() } : {}),
      });
      setAdded(`Feed ${feed.url} added: its next new item is sent; what it has now is not.`);
      setUrl('');
      onAdded();
    } catch (failure) {
      setError(onError(failure));
    }
  };

  return (
    <form className="card" onSubmit={add} noValidate aria-labelledby="add-feed-title">
      <h2 id="add-feed-title">Add a feed</h2>
      <div className="field">
        <label htmlFor="feed-url">RSS or Atom URL</label>
        <input
          id="feed-url"
          type="url"
          value={url}
          maxLength={FEED_URL_MAX_LENGTH}
          spellCheck={false}
          placeholder="https://example.com/feed.xml"
          onChange={(event) => setUrl(event.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="feed-segment">Segment (empty: everyone)</label>
        <input id="feed-segment" value={segment} spellCheck={false} onChange={(event) => setSegment(event.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="feed-interval">Minutes between polls</label>
        <input
          id="feed-interval"
          type="number"
          min={FEED_MIN_INTERVAL_MINUTES}
          value={interval}
          onChange={(event) => setIntervalText(event.target.value)}
        />
      </div>
      <fieldset className="field">
        <legend>Send</legend>
        <label className="radio">
          <input type="radio" name="feed-mode" checked={mode === 'each'} onChange={() => setMode('each')} /> each new item
        </label>
        <label className="radio">
          <input type="radio" name="feed-mode" checked={mode === 'digest'} onChange={() => setMode('digest')} /> one digest per poll
        </label>
      </fieldset>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {added && (
        <p className="ok" role="status">
          {added}
        </p>
      )}
      <div className="buttons">
        <button type="submit" className="button">
          Add feed
        </button>
      </div>
    </form>
  );
}
