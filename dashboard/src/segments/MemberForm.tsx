import { useState } from 'react';
import type { Segment } from '../../../contract/owner-api.ts';
import type { SiteApi } from '../api.ts';

/** Adds a subscriber, by id, to a stored segment or removes them from it. */
export function MemberForm(props: { api: SiteApi; segments: Segment[]; onError(error: unknown): string; onChanged(): void }) {
  const { api } = props;
  const [member, setMember] = useState({ sid: '', subscriberId: '' });
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const stored = props.segments.filter((segment) => segment.createdAt !== null);

  const change = async (add: boolean) => {
    setMessage(null);
    if (!member.sid || !member.subscriberId.trim()) {
      setMessage({ text: 'Choose a segment and enter a subscriber id.', error: true });
      return;
    }
    const subscriberId = member.subscriberId.trim();
    try {
      if (add) {
        const reply = await api.addMember(member.sid, subscriberId);
        setMessage({
          text: reply.added ? `${subscriberId} added to ${member.sid}.` : `${subscriberId} was in ${member.sid} already.`,
          error: false,
        });
      } else {
        await api.removeMember(member.sid, subscriberId);
        setMessage({ text: `${subscriberId} removed from ${member.sid}.`, error: false });
      }
      props.onChanged();
    } catch (failure) {
      setMessage({ text: props.onError(failure), error: true });
    }
  };

  return (
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
        <button type="button" onClick={() => change(true)}>
          Add to segment
        </button>
        <button type="button" className="secondary" onClick={() => change(false)}>
          Remove from segment
        </button>
      </div>
      {message && (
        <p className={message.error ? 'error' : 'ok'} role="status">
          {message.text}
        </p>
      )}
    </section>
  );
}
