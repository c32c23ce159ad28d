import { useState } from 'react';
import type { Segment } from '../../../contract/owner-api.ts';
import type { SiteApi } from '../api.ts';

/** The segments a subscriber is in, with a button to take them out of each and a choice of segments to add them to. */
export function Memberships(props: {
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
