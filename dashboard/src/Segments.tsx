import { useState, type FormEvent } from 'react';
// The compiler's condition language is checked by the provider (the dashboard imports only contract/).
import { formatConditionError } from '../../contract/conditions.ts';
import { SEGMENT_ID_MAX_LENGTH, SEGMENT_ID_PATTERN } from '../../contract/ids.ts';
import { SEGMENT_NAME_MAX_LENGTH, type Segment } from '../../contract/owner-api.ts';
import { formatNumber, type SiteApi } from './api.ts';
import { useConditionCheck, type ConditionCheckState } from './useConditionCheck.ts';
import { useLoad } from './useLoad.ts';

/** The provider's verdict on the condition being typed (it checks with the compiler `push-kit build` uses). */
function ConditionCheck({ source, check }: { source: string; check: ConditionCheckState }) {
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

function where(segment: Segment): string {
  if (segment.configCondition !== null) return 'site config (push.js)';
  if (segment.condition) return 'not in push.js yet';
  return 'added by visitors or here';
}

export function Segments({ api, onError }: { api: SiteApi; onError(error: unknown): string }) {
  const segments = useLoad(() => api.segments(), onError, [api]);
  const [sid, setSid] = useState('');
  const [name, setName] = useState('');
  const [condition, setCondition] = useState('');
  const [createError, setCreateError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ sid: string; condition: string | null } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  const [listMessage, setListMessage] = useState<string | null>(null);
  const [member, setMember] = useState({ sid: '', subscriberId: '' });
  const [memberMessage, setMemberMessage] = useState<{ text: string; error: boolean } | null>(null);

  const conditionCheck = useConditionCheck(api, condition, onError);
  const conditionOk = conditionCheck.kind === 'empty' || (conditionCheck.kind === 'checked' && conditionCheck.reply.ok);
  const sidOk = SEGMENT_ID_PATTERN.test(sid);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setCreateError(null);
    setCreated(null);
    if (!sidOk) {
      setCreateError('The segment id is 1 to 29 letters, digits, "_" or "-".');
      return;
    }
    if (!conditionOk) return;
    try {
      await api.createSegment({ sid, name: name.trim() || undefined, condition: condition.trim() || undefined });
      setCreated({ sid, condition: condition.trim() || null });
      setSid('');
      setName('');
      setCondition('');
      segments.reload();
    } catch (failure) {
      setCreateError(onError(failure));
    }
  };

  const remove = async (segmentId: string) => {
    setConfirmDelete(null);
    try {
      await api.deleteSegment(segmentId);
      setListMessage(`Segment ${segmentId} deleted.`);
      segments.reload();
    } catch (failure) {
      setListMessage(onError(failure));
    }
  };

  const changeMember = async (add: boolean) => {
    setMemberMessage(null);
    if (!member.sid || !member.subscriberId.trim()) {
      setMemberMessage({ text: 'Choose a segment and enter a subscriber id.', error: true });
      return;
    }
    const subscriberId = member.subscriberId.trim();
    try {
      if (add) {
        const reply = await api.addMember(member.sid, subscriberId);
        setMemberMessage({
          text: reply.added ? `${subscriberId} added to ${member.sid}.` : `${subscriberId} was in ${member.sid} already.`,
          error: false,
        });
      } else {
        await api.removeMember(member.sid, subscriberId);
        setMemberMessage({ text: `${subscriberId} removed from ${member.sid}.`, error: false });
      }
      segments.reload();
    } catch (failure) {
      setMemberMessage({ text: onError(failure), error: true });
    }
  };

  const stored = (segments.value ?? []).filter((segment) => segment.createdAt !== null);

  return (
    <div className="screen">
      <h1>Segments</h1>
      <section className="card" aria-labelledby="segments-title">
        <h2 id="segments-title">Segments of this site</h2>
        {segments.error && (
          <p className="error" role="alert">
            {segments.error}
          </p>
        )}
        {listMessage && <p role="status">{listMessage}</p>}
        {segments.value && segments.value.length === 0 && <p className="muted">No segment yet.</p>}
        {segments.value && segments.value.length > 0 && (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Segment</th>
                  <th scope="col">Condition</th>
                  <th scope="col">Where it runs</th>
                  <th scope="col" className="num">
                    Members
                  </th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {segments.value.map((segment) => (
                  <tr key={segment.sid} data-sid={segment.sid}>
                    <td>
                      <strong>{segment.sid}</strong>
                      {segment.name !== segment.sid && <div className="muted">{segment.name}</div>}
                    </td>
                    <td>
                      <code>{segment.configCondition ?? segment.condition ?? '—'}</code>
                    </td>
                    <td>{where(segment)}</td>
                    <td className="num" data-members={segment.members}>
                      {formatNumber(segment.members)}
                    </td>
                    <td>
                      {segment.createdAt === null ? null : confirmDelete === segment.sid ? (
                        <span className="buttons">
                          <button type="button" className="danger small" onClick={() => remove(segment.sid)}>
                            Delete {segment.sid} for good
                          </button>
                          <button type="button" className="secondary small" onClick={() => setConfirmDelete(null)}>
                            Keep
                          </button>
                        </span>
                      ) : (
                        <button
                          type="button"
                          className="secondary small"
                          onClick={() => setConfirmDelete(segment.sid)}
                          aria-label={`Delete segment ${segment.sid}`}
                        >
                          Delete
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <div className="columns">
        <form className="card" onSubmit={create} noValidate aria-labelledby="create-title">
          <h2 id="create-title">Create a segment</h2>
          <div className="field">
            <label htmlFor="segment-sid">Segment id</label>
            <input
              id="segment-sid"
              value={sid}
              maxLength={SEGMENT_ID_MAX_LENGTH}
              spellCheck={false}
              onChange={(event) => setSid(event.target.value)}
              aria-invalid={sid !== '' && !sidOk}
              aria-describedby="segment-sid-hint"
            />
            <small id="segment-sid-hint" className={sid !== '' && !sidOk ? 'error' : 'muted'}>
              1 to 29 letters, digits, "_" or "-"; the site's pages use it (addToSegment).
            </small>
          </div>
          <div className="field">
            <label htmlFor="segment-name">Name (optional)</label>
            <input id="segment-name" value={name} maxLength={SEGMENT_NAME_MAX_LENGTH} onChange={(event) => setName(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="segment-condition">Condition</label>
            <textarea
              id="segment-condition"
              rows={3}
              spellCheck={false}
              value={condition}
              onChange={(event) => setCondition(event.target.value)}
              aria-invalid={conditionCheck.kind === 'checked' && !conditionCheck.reply.ok}
              aria-describedby="condition-status"
            />
            <ConditionCheck source={condition} check={conditionCheck} />
          </div>
          {createError && (
            <p className="error" role="alert">
              {createError}
            </p>
          )}
          <div className="buttons">
            <button type="submit" disabled={!conditionOk}>
              Create segment
            </button>
          </div>
          {created && (
            <div role="status" className="ok">
              <p>Segment {created.sid} created.</p>
              {created.condition && (
                <>
                  <p className="muted">
                    Conditions run in the visitor's browser: add this entry to <code>segmentations</code> in the site config and rebuild
                    (push-kit build) for visitors to join it.
                  </p>
                  <pre className="snippet">{JSON.stringify({ sid: created.sid, ss: created.condition, vn: 1 })}</pre>
                </>
              )}
            </div>
          )}
        </form>

        <section className="card" aria-labelledby="members-title">
          <h2 id="members-title">Add or remove a subscriber</h2>
          <div className="field">
            <label htmlFor="member-segment">Segment</label>
            <select id="member-segment" value={member.sid} onChange={(event) => setMember({ ...member, sid: event.target.value })}>
              <option value="">Choose a segment</option>
              {stored.map((segment) => (
                <option key={segment.sid} value={segment.sid}>
                  {segment.sid}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="member-id">Subscriber id</label>
            <input
              id="member-id"
              spellCheck={false}
              value={member.subscriberId}
              onChange={(event) => setMember({ ...member, subscriberId: event.target.value })}
            />
          </div>
          <div className="buttons">
            <button type="button" onClick={() => changeMember(true)}>
              Add to segment
            </button>
            <button type="button" className="secondary" onClick={() => changeMember(false)}>
              Remove from segment
            </button>
          </div>
          {memberMessage && (
            <p className={memberMessage.error ? 'error' : 'ok'} role="status">
              {memberMessage.text}
            </p>
          )}
        </section>
      </div>
    </div>
  );
}
