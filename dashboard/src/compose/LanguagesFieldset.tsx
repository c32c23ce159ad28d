import { CAMPAIGN_BODY_MAX_LENGTH, CAMPAIGN_TITLE_MAX_LENGTH } from '../../../contract/campaign-limits.ts';
import { LANGUAGES_MAX } from '../../../contract/languages.ts';
import type { Draft } from './draft.ts';
import { problemIdOf, type DraftFieldsProps } from './draftFieldsProps.ts';
import { Field } from './Field.tsx';

/**
 * Texts per language (docs/languages.md): each language's tag, title and message; each subscriber gets the best
 * match of their browser's language, else the notification's own texts. The preview shows the language chosen.
 */
export function LanguagesFieldset({ draft, shown, change }: DraftFieldsProps) {
  const changeLanguage = (index: number, edit: Partial<Draft['languages'][number]>) =>
    change(
      'languages',
      draft.languages.map((other, at) => (at === index ? { ...other, ...edit } : other)),
    );
  const describedBy = (id: string) => problemIdOf(shown, id);
  return (
    <fieldset>
      <legend>Languages</legend>
      <p className="muted" id="languages-hint">
        Subscribers whose browser language matches a language here (de-DE matches de) get its texts; everyone else gets the title and
        message above.
      </p>
      {shown.languages && (
        <p className="error" id="languages-problem" role="alert">
          {shown.languages}
        </p>
      )}
      {draft.languages.map((language, index) => {
        const name = language.tag.trim() || `Language ${index + 1}`;
        return (
          <div key={index} className="variant" role="group" aria-label={`Language ${index + 1}`}>
            <Field
              id={`language${index}-tag`}
              label={`Language ${index + 1} tag`}
              problem={shown[`language${index}-tag`]}
              hint="such as de or fr-CA"
            >
              <input
                id={`language${index}-tag`}
                value={language.tag}
                onChange={(e) => changeLanguage(index, { tag: e.target.value })}
                aria-invalid={!!shown[`language${index}-tag`]}
                aria-describedby={describedBy(`language${index}-tag`) ?? `language${index}-tag-hint`}
              />
            </Field>
            <Field id={`language${index}-title`} label={`${name} title`} problem={shown[`language${index}-title`]}>
              <input
                id={`language${index}-title`}
                value={language.title}
                maxLength={CAMPAIGN_TITLE_MAX_LENGTH}
                onChange={(e) => changeLanguage(index, { title: e.target.value })}
                aria-invalid={!!shown[`language${index}-title`]}
                aria-describedby={describedBy(`language${index}-title`)}
              />
            </Field>
            <Field id={`language${index}-body`} label={`${name} message`} problem={shown[`language${index}-body`]}>
              <textarea
                id={`language${index}-body`}
                rows={2}
                value={language.body}
                maxLength={CAMPAIGN_BODY_MAX_LENGTH}
                onChange={(e) => changeLanguage(index, { body: e.target.value })}
                aria-invalid={!!shown[`language${index}-body`]}
                aria-describedby={describedBy(`language${index}-body`)}
              />
            </Field>
            <button
              type="button"
              className="secondary small"
              onClick={() => {
                change(
                  'languages',
                  draft.languages.filter((_, at) => at !== index),
                );
                if (draft.previewLanguage === index) change('previewLanguage', null);
                else if (draft.previewLanguage !== null && draft.previewLanguage > index)
                  change('previewLanguage', draft.previewLanguage - 1);
              }}
            >
              Remove language {index + 1}
            </button>
          </div>
        );
      })}
      {draft.languages.length < LANGUAGES_MAX && (
        <button
          type="button"
          className="secondary small"
          onClick={() => change('languages', [...draft.languages, { tag: '', title: '', body: '' }])}
        >
          Add language
        </button>
      )}
      {draft.languages.length > 0 && (
        <div className="field">
          <label htmlFor="preview-language">Preview in</label>
          <select
            id="preview-language"
            value={draft.previewLanguage === null ? '' : String(draft.previewLanguage)}
            onChange={(e) => change('previewLanguage', e.target.value === '' ? null : Number(e.target.value))}
          >
            <option value="">the default texts</option>
            {draft.languages.map((language, index) => (
              <option key={index} value={String(index)}>
                {language.tag.trim() || `Language ${index + 1}`}
              </option>
            ))}
          </select>
        </div>
      )}
    </fieldset>
  );
}
