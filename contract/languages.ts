// A campaign's, A/B variant's or automation's texts per language (docs/languages.md): each subscriber gets the
// texts of the best match of their stored language (exact, then primary subtag, then the default title/body).
// Types and the matching rule only, no zod: the provider, the CLI and the dashboard's preview share them; the
// input schema is languageTextsSchema in campaign-input.ts.

/** A language tag as a texts key: "de", "fr-CA", "zh-Hant-TW" (BCP 47-ish, lower-case primary subtag). */
export const LANGUAGE_TAG_PATTERN = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
export const LANGUAGE_TAG_RULE = 'must be a language tag such as de or fr-CA';
/** At most this many languages per campaign, variant or automation. */
export const LANGUAGES_MAX = 50;
/** The name of the default texts' share in a campaign's figures by language. */
export const DEFAULT_LANGUAGE = 'default';

/** One language's texts. */
export interface LanguageText {
  title: string;
  body: string;
}

/** Texts by language tag, beside the default title and body. */
export type LanguageTexts = Record<string, LanguageText>;

/**
 * The key of `texts` a subscriber whose stored language is `language` ("de-DE") gets: the same tag (any case),
 * else the tag of its primary subtag ("de"), else undefined (the default texts).
 */
export function bestLanguage(texts: LanguageTexts | null | undefined, language: string | null | undefined): string | undefined {
  if (!texts || !language) return undefined;
  const wanted = language.toLowerCase();
  const keys = Object.keys(texts);
  const exact = keys.find((key) => key.toLowerCase() === wanted);
  if (exact !== undefined) return exact;
  const primary = wanted.split('-')[0];
  return keys.find((key) => key.toLowerCase() === primary);
}

/** The title and body a subscriber gets, with the key of the language they are in (undefined: the default). */
export function textsFor(
  fallback: LanguageText,
  texts: LanguageTexts | null | undefined,
  language: string | null | undefined,
): LanguageText & { language?: string } {
  const key = bestLanguage(texts, language);
  return key === undefined ? { title: fallback.title, body: fallback.body } : { ...texts![key]!, language: key };
}
