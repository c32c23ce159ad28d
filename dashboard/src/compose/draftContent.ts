// A compose form from what the provider kept (a draft or template saved by this or an older dashboard) or from a
// campaign being duplicated: field by field over a blank draft, so a field of the wrong type or one the form no
// longer has is left out rather than breaking the form.
import type { Campaign, SiteSummary } from '../../../contract/owner-api.ts';
import { URGENCIES } from '../../../contract/urgency.ts';
import { AUDIENCES, blankDraft, blankVariant, MAX_VARIANTS, MIN_VARIANTS, type Draft, type VariantDraft } from './draft.ts';

type Site = Pick<SiteSummary, 'origin' | 'iconUrl'>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const stringsOf = <K extends string>(value: unknown, keys: readonly K[]): Record<K, string> | null =>
  isRecord(value) && keys.every((key) => typeof value[key] === 'string')
    ? (Object.fromEntries(keys.map((key) => [key, value[key]])) as Record<K, string>)
    : null;
const listOf = <T>(value: unknown, item: (entry: unknown) => T | null): T[] | null => {
  if (!Array.isArray(value)) return null;
  const items = value.map(item);
  return items.every((entry) => entry !== null) ? (items as T[]) : null;
};

/** The form a saved draft's content makes; what does not fit keeps the blank draft's value. */
export function draftFromContent(content: Record<string, unknown>, site: Site): Draft {
  const draft = blankDraft(site);
  const out: Record<string, unknown> = { ...draft };
  for (const [key, blank] of Object.entries(draft)) {
    const value = content[key];
    if (typeof blank === 'string' || typeof blank === 'boolean' || typeof blank === 'number') {
      if (typeof value === typeof blank) out[key] = value;
    }
  }
  const languages = listOf(content.languages, (entry) => stringsOf(entry, ['tag', 'title', 'body']));
  if (languages) out.languages = languages;
  const buttons = listOf(content.buttons, (entry) => stringsOf(entry, ['title', 'url']));
  if (buttons) out.buttons = buttons;
  const variants = listOf(content.variants, (entry) => stringsOf(entry, ['title', 'body', 'url', 'icon', 'image']));
  if (variants && variants.length >= MIN_VARIANTS && variants.length <= MAX_VARIANTS) out.variants = variants;
  const result = out as unknown as Draft;
  if (!AUDIENCES.includes(result.audience)) result.audience = draft.audience;
  if (!['now', 'at', 'local', 'best-hour'].includes(result.when)) result.when = draft.when;
  if (!URGENCIES.includes(result.urgency)) result.urgency = draft.urgency;
  const preview = content.previewLanguage;
  result.previewLanguage =
    typeof preview === 'number' && Number.isInteger(preview) && preview >= 0 && preview < result.languages.length ? preview : null;
  return result;
}

/**
 * A new form with a sent campaign's message, buttons, languages, audience and A/B variants: what "Duplicate" opens.
 * It goes now (a schedule in the past means nothing to a copy); a local-time campaign keeps its time of day.
 */
export function draftFromCampaign(campaign: Campaign, site: Site): Draft {
  const draft = blankDraft(site);
  const variants: VariantDraft[] = campaign.variants.map((variant) => ({
    ...blankVariant(),
    title: variant.title ?? '',
    body: variant.body ?? '',
    url: variant.url ?? '',
    icon: variant.icon ?? '',
    image: variant.image ?? '',
  }));
  return {
    ...draft,
    title: campaign.title,
    body: campaign.body,
    languages: Object.entries(campaign.texts).map(([tag, texts]) => ({ tag, title: texts.title, body: texts.body })),
    url: campaign.url ?? draft.url,
    icon: campaign.icon ?? '',
    image: campaign.image ?? '',
    buttons: campaign.actions.map((action) => ({ title: action.title, url: action.url ?? '' })),
    ttl: campaign.ttl,
    urgency: campaign.urgency,
    audience: campaign.audience ? 'audience' : campaign.segment ? 'segment' : campaign.subscriberId ? 'subscriber' : 'all',
    segment: campaign.segment ?? '',
    audienceId: campaign.audience ?? '',
    subscriberId: campaign.subscriberId ?? '',
    when: campaign.localTime ? 'local' : 'now',
    localTime: campaign.localTime ?? draft.localTime,
    ...(variants.length >= MIN_VARIANTS
      ? {
          abTest: true,
          variants,
          winnerAfter:
            'winnerAfterMinutes' in campaign && campaign.winnerAfterMinutes ? String(campaign.winnerAfterMinutes) : draft.winnerAfter,
        }
      : {}),
  };
}

/** What the drafts list calls a draft: its title as typed, else "Untitled". */
export const draftName = (draft: Draft) => draft.title.trim().slice(0, 100);

/** Whether the form holds anything worth keeping: a blank form is not saved as a draft. */
export function hasContent(draft: Draft, site: Site): boolean {
  const blank = blankDraft(site);
  return (
    draft.title.trim() !== '' ||
    draft.body.trim() !== '' ||
    draft.image.trim() !== '' ||
    draft.languages.length > 0 ||
    draft.buttons.length > 0 ||
    draft.abTest ||
    draft.url !== blank.url
  );
}

/** Where the Campaigns screen's "Duplicate" sends the owner: the compose screen with a copy of the campaign. */
export const duplicateHref = (campaignId: string) => `#/compose/campaign/${encodeURIComponent(campaignId)}`;
