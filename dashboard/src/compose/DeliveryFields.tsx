import { MAX_TTL_SECONDS, THROTTLE_PER_MINUTE_MAX, THROTTLE_PER_MINUTE_MIN } from '../../../contract/campaign-limits.ts';
import { URGENCIES, type Urgency } from '../../../contract/urgency.ts';
import { problemIdOf, type DraftFieldsProps } from './draftFieldsProps.ts';
import { Field } from './Field.tsx';

const TTL_CHOICES = [
  { seconds: 0, label: 'Now or never (0 s)' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '1 day' },
  { seconds: 604_800, label: '1 week' },
  { seconds: MAX_TTL_SECONDS, label: '4 weeks (the most)' },
];

/** How the push service treats the message: how long it waits for an offline browser, and its urgency. */
export function DeliveryFields({ draft, shown, change }: DraftFieldsProps) {
  return (
    <div className="field-row">
      <Field id="ttl" label="Keep for an offline browser (TTL)">
        <select id="ttl" value={draft.ttl} onChange={(e) => change('ttl', Number(e.target.value))}>
          {TTL_CHOICES.map((choice) => (
            <option key={choice.seconds} value={choice.seconds}>
              {choice.label}
            </option>
          ))}
        </select>
      </Field>
      <Field
        id="throttle"
        label="Send rate (a minute)"
        problem={shown.throttle}
        hint="Empty: the site's default, else as fast as the push services take it."
      >
        <input
          id="throttle"
          type="number"
          min={THROTTLE_PER_MINUTE_MIN}
          max={THROTTLE_PER_MINUTE_MAX}
          step={1}
          value={draft.throttle}
          onChange={(e) => change('throttle', e.target.value)}
          aria-invalid={!!shown.throttle}
          aria-describedby={problemIdOf(shown, 'throttle') ?? 'throttle-hint'}
        />
      </Field>
      <Field id="urgency" label="Urgency">
        <select id="urgency" value={draft.urgency} onChange={(e) => change('urgency', e.target.value as Urgency)}>
          {URGENCIES.map((urgency) => (
            <option key={urgency} value={urgency}>
              {urgency}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );
}
