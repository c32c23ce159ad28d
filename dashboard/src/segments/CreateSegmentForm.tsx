import { useState, type FormEvent } from 'react';
import { SEGMENT_ID_MAX_LENGTH, SEGMENT_ID_PATTERN } from '../../../contract/ids.ts';
import { SEGMENT_NAME_MAX_LENGTH } from '../../../contract/owner-api.ts';
import type { SiteApi } from '../api.ts';
import { useConditionCheck } from '../useConditionCheck.ts';
import { ConditionCheck } from './ConditionCheck.tsx';

/** A new segment: its id, a name, and an optional condition the provider checks as it is typed. */
export function CreateSegmentForm({ api, onError, onCreated }: { api: SiteApi; onError(error: unknown): string; onCreated(): void }) {
  const [sid, setSid] = useState('');
  const [name, setName] = useState('');
  const [condition, setCondition] = useState('');
  const [createError, setCreateError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ sid: string; condition: string | null } | null>(null);

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
      onCreated();
    } catch (failure) {
      setCreateError(onError(failure));
    }
  };

  return (
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
  );
}
