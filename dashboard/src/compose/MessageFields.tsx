import { CAMPAIGN_BODY_MAX_LENGTH, CAMPAIGN_TITLE_MAX_LENGTH } from '../../../contract/campaign-limits.ts';
import { problemIdOf, type DraftFieldsProps } from './draftFieldsProps.ts';
import { Field } from './Field.tsx';

/** The notification itself: title, message, the page a click opens, icon and image. */
export function MessageFields({ draft, shown, change }: DraftFieldsProps) {
  const describedBy = (id: string) => problemIdOf(shown, id);
  return (
    <>
      <Field id="title" label="Title" problem={shown.title}>
        <input
          id="title"
          value={draft.title}
          maxLength={CAMPAIGN_TITLE_MAX_LENGTH}
          onChange={(e) => change('title', e.target.value)}
          aria-invalid={!!shown.title}
          aria-describedby={describedBy('title')}
        />
      </Field>
      <Field id="body" label="Message" problem={shown.body}>
        <textarea
          id="body"
          rows={3}
          value={draft.body}
          maxLength={CAMPAIGN_BODY_MAX_LENGTH}
          onChange={(e) => change('body', e.target.value)}
          aria-invalid={!!shown.body}
          aria-describedby={describedBy('body')}
        />
      </Field>
      <Field id="url" label="Opens (URL)" problem={shown.url} hint="The page a click opens; pages of other sites are not opened.">
        <input
          id="url"
          type="url"
          value={draft.url}
          onChange={(e) => change('url', e.target.value)}
          aria-invalid={!!shown.url}
          aria-describedby={describedBy('url') ?? 'url-hint'}
        />
      </Field>
      <div className="field-row">
        <Field id="icon" label="Icon (URL)" problem={shown.icon}>
          <input
            id="icon"
            type="url"
            value={draft.icon}
            onChange={(e) => change('icon', e.target.value)}
            aria-invalid={!!shown.icon}
            aria-describedby={describedBy('icon')}
          />
        </Field>
        <Field id="image" label="Image (URL, optional)" problem={shown.image}>
          <input
            id="image"
            type="url"
            value={draft.image}
            onChange={(e) => change('image', e.target.value)}
            aria-invalid={!!shown.image}
            aria-describedby={describedBy('image')}
          />
        </Field>
      </div>
    </>
  );
}
