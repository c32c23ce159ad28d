import { variantLetter } from '../variantLetter.ts';
import { blankVariant, MAX_VARIANTS, MIN_VARIANTS, VARIANT_FIELDS } from './draft.ts';
import { problemIdOf, type DraftFieldsProps } from './draftFieldsProps.ts';
import { Field } from './Field.tsx';

/** An A/B test: the variants, the share of the audience that tries them, and when the best goes to the rest. */
export function AbTestFieldset({ draft, shown, change }: DraftFieldsProps) {
  return (
    <fieldset>
      <legend>A/B test</legend>
      <label className="radio">
        <input type="checkbox" checked={draft.abTest} onChange={(e) => change('abTest', e.target.checked)} /> Test variants of this
        notification
      </label>
      {draft.abTest && (
        <>
          <p className="muted" id="variants-hint">
            Each variant goes to an equal part of the test share; a field left empty keeps the notification's own. The variant with the best
            click rate then goes to everyone else.
          </p>
          {shown.variants && (
            <p className="error" id="variants-problem" role="alert">
              {shown.variants}
            </p>
          )}
          {draft.variants.map((variant, index) => (
            <div key={index} className="variant" role="group" aria-label={`Variant ${variantLetter(index)}`}>
              {VARIANT_FIELDS.map(([field, label]) => {
                const id = `variant${index}-${field}`;
                return (
                  <Field key={field} id={id} label={`Variant ${variantLetter(index)} ${label}`} problem={shown[id]}>
                    <input
                      id={id}
                      type={field === 'title' || field === 'body' ? 'text' : 'url'}
                      value={variant[field]}
                      onChange={(e) =>
                        change(
                          'variants',
                          draft.variants.map((other, at) => (at === index ? { ...other, [field]: e.target.value } : other)),
                        )
                      }
                      aria-invalid={!!shown[id]}
                      aria-describedby={problemIdOf(shown, id)}
                    />
                  </Field>
                );
              })}
              {draft.variants.length > MIN_VARIANTS && (
                <button
                  type="button"
                  className="secondary small"
                  onClick={() =>
                    change(
                      'variants',
                      draft.variants.filter((_, at) => at !== index),
                    )
                  }
                >
                  Remove variant {variantLetter(index)}
                </button>
              )}
            </div>
          ))}
          {draft.variants.length < MAX_VARIANTS && (
            <button type="button" className="secondary small" onClick={() => change('variants', [...draft.variants, blankVariant()])}>
              Add a variant
            </button>
          )}
          <div className="field-row">
            <Field id="testPercent" label="Share of the audience in the test (%)" problem={shown.testPercent}>
              <input
                id="testPercent"
                type="number"
                min={5}
                max={95}
                value={draft.testPercent}
                onChange={(e) => change('testPercent', e.target.value)}
                aria-invalid={!!shown.testPercent}
                aria-describedby={problemIdOf(shown, 'testPercent')}
              />
            </Field>
            <Field id="winnerAfter" label="Pick the winner after (minutes)" problem={shown.winnerAfter}>
              <input
                id="winnerAfter"
                type="number"
                min={5}
                value={draft.winnerAfter}
                onChange={(e) => change('winnerAfter', e.target.value)}
                aria-invalid={!!shown.winnerAfter}
                aria-describedby={problemIdOf(shown, 'winnerAfter')}
              />
            </Field>
          </div>
        </>
      )}
    </fieldset>
  );
}
