import type { Segment } from '../../../contract/owner-api.ts';
import { formatNumber } from '../api.ts';
import type { DraftFieldsProps } from './draftFieldsProps.ts';
import { Field } from './Field.tsx';

/** Whom the notification goes to: every active subscriber, the members of a stored segment, or one subscriber. */
export function AudienceFieldset({ draft, shown, change, segments }: DraftFieldsProps & { segments: Segment[] }) {
  return (
    <fieldset>
      <legend>Audience</legend>
      <label className="radio">
        <input type="radio" name="audience" checked={draft.audience === 'all'} onChange={() => change('audience', 'all')} /> All active
        subscribers
      </label>
      <label className="radio">
        <input type="radio" name="audience" checked={draft.audience === 'segment'} onChange={() => change('audience', 'segment')} /> A
        segment
      </label>
      {draft.audience === 'segment' && (
        <Field id="segment" label="Segment" problem={shown.segment}>
          <select id="segment" value={draft.segment} onChange={(e) => change('segment', e.target.value)}>
            <option value="">Choose a segment</option>
            {segments
              .filter((segment) => segment.createdAt !== null)
              .map((segment) => (
                <option key={segment.sid} value={segment.sid}>
                  {segment.name === segment.sid ? segment.sid : `${segment.name} (${segment.sid})`}: {formatNumber(segment.members)} members
                </option>
              ))}
          </select>
        </Field>
      )}
      <label className="radio">
        <input type="radio" name="audience" checked={draft.audience === 'subscriber'} onChange={() => change('audience', 'subscriber')} />{' '}
        One subscriber
      </label>
      {draft.audience === 'subscriber' && (
        <Field id="subscriberId" label="Subscriber id" problem={shown.subscriberId}>
          <input id="subscriberId" spellCheck={false} value={draft.subscriberId} onChange={(e) => change('subscriberId', e.target.value)} />
        </Field>
      )}
    </fieldset>
  );
}
