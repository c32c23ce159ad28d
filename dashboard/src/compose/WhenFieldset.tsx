import { useDisplayZone } from '../clock/index.ts';
import { problemIdOf, type DraftFieldsProps } from './draftFieldsProps.ts';
import { Field } from './Field.tsx';

/** When the notification goes out: now, at a moment on the owner's clock, or at a time of day on each subscriber's. */
export function WhenFieldset({ draft, shown, change }: DraftFieldsProps) {
  const zone = useDisplayZone();
  return (
    <fieldset>
      <legend>When</legend>
      <label className="radio">
        <input type="radio" name="when" checked={draft.when === 'now'} onChange={() => change('when', 'now')} /> Now
      </label>
      <label className="radio">
        <input type="radio" name="when" checked={draft.when === 'at'} onChange={() => change('when', 'at')} /> At a date and time
      </label>
      {draft.when === 'at' && (
        <Field
          id="sendAt"
          label="Date and time (your clock)"
          problem={shown.sendAt}
          hint={`Read on your clock: ${zone} (change it under "Times in" at the top).`}
        >
          <input
            id="sendAt"
            type="datetime-local"
            value={draft.sendAt}
            onChange={(e) => change('sendAt', e.target.value)}
            aria-invalid={!!shown.sendAt}
            aria-describedby={problemIdOf(shown, 'sendAt') ?? 'sendAt-hint'}
          />
        </Field>
      )}
      <label className="radio">
        <input type="radio" name="when" checked={draft.when === 'local'} onChange={() => change('when', 'local')} /> At a time of day on
        each subscriber's own clock
      </label>
      {draft.when === 'local' && (
        <Field
          id="localTime"
          label="Time of day (subscriber's clock)"
          problem={shown.localTime}
          hint="Reaches each time zone as it gets there."
        >
          <input
            id="localTime"
            type="time"
            value={draft.localTime}
            onChange={(e) => change('localTime', e.target.value)}
            aria-invalid={!!shown.localTime}
            aria-describedby={problemIdOf(shown, 'localTime') ?? 'localTime-hint'}
          />
        </Field>
      )}
      <label className="radio">
        <input type="radio" name="when" checked={draft.when === 'best-hour'} onChange={() => change('when', 'best-hour')} /> At each
        subscriber's best hour
      </label>
      {draft.when === 'best-hour' && (
        <p className="muted" id="best-hour-hint">
          Within 24 hours, each at the hour of day they clicked most (their clock), else the site's best hour; 10% go at once, so the
          campaign's figures show whether it helps.
        </p>
      )}
    </fieldset>
  );
}
