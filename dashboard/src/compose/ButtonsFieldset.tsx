import { CAMPAIGN_ACTION_TITLE_MAX_LENGTH, CAMPAIGN_ACTIONS_MAX } from '../../../contract/campaign-limits.ts';
import type { Draft } from './draft.ts';
import type { DraftFieldsProps } from './draftFieldsProps.ts';
import { Field } from './Field.tsx';

/** The notification's action buttons: a label and an optional page each, up to the most a notification shows. */
export function ButtonsFieldset({ draft, shown, change }: DraftFieldsProps) {
  const changeButton = (index: number, edit: Partial<Draft['buttons'][number]>) =>
    change(
      'buttons',
      draft.buttons.map((other, at) => (at === index ? { ...other, ...edit } : other)),
    );
  return (
    <fieldset>
      <legend>Buttons</legend>
      {draft.buttons.map((button, index) => (
        <div key={index} className="field-row">
          <Field id={`button${index}`} label={`Button ${index + 1} label`} problem={shown[`button${index}`]}>
            <input
              id={`button${index}`}
              value={button.title}
              maxLength={CAMPAIGN_ACTION_TITLE_MAX_LENGTH}
              onChange={(e) => changeButton(index, { title: e.target.value })}
            />
          </Field>
          <Field id={`button${index}url`} label={`Button ${index + 1} opens (URL, optional)`} problem={shown[`button${index}url`]}>
            <input id={`button${index}url`} type="url" value={button.url} onChange={(e) => changeButton(index, { url: e.target.value })} />
          </Field>
          <button
            type="button"
            className="secondary small"
            onClick={() =>
              change(
                'buttons',
                draft.buttons.filter((_, at) => at !== index),
              )
            }
          >
            Remove button {index + 1}
          </button>
        </div>
      ))}
      {draft.buttons.length < CAMPAIGN_ACTIONS_MAX && (
        <button type="button" className="secondary small" onClick={() => change('buttons', [...draft.buttons, { title: '', url: '' }])}>
          Add a button
        </button>
      )}
    </fieldset>
  );
}
