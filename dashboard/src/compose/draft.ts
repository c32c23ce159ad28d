import type { SiteSummary } from '../../../contract/owner-api.ts';
import { DEFAULT_TTL_SECONDS } from '../../../contract/campaign-limits.ts';
import { DEFAULT_URGENCY, type Urgency } from '../../../contract/urgency.ts';

/** Everyone; a browser segment; an audience (a rule over stored data, docs/audiences.md); one subscriber. */
export const AUDIENCES = ['all', 'segment', 'audience', 'subscriber'] as const;
export type Audience = (typeof AUDIENCES)[number];
/** now; at a time (the owner's clock); at a time of day on each subscriber's own clock; at each one's best hour. */
export type When = 'now' | 'at' | 'local' | 'best-hour';

/** The compose form as typed: every field a string or choice, checked and converted only on review. */
export interface Draft {
  title: string;
  body: string;
  /** Texts per language (docs/languages.md), each its tag, title and message as typed. */
  languages: LanguageDraft[];
  /** Which language the preview shows (an index of languages), null: the default texts. */
  previewLanguage: number | null;
  url: string;
  icon: string;
  image: string;
  buttons: { title: string; url: string }[];
  ttl: number;
  urgency: Urgency;
  audience: Audience;
  segment: string;
  /** The audience's id when audience is 'audience'. */
  audienceId: string;
  subscriberId: string;
  when: When;
  /** A datetime-local value, read in the owner's time zone. */
  sendAt: string;
  /** HH:MM */
  localTime: string;
  /** An A/B test: 2 to 4 variants of the notification, each changing what it fills in. */
  abTest: boolean;
  variants: VariantDraft[];
  /** The share of the audience in the test, in percent as typed. */
  testPercent: string;
  /** Minutes until the best click rate goes to the rest, as typed. */
  winnerAfter: string;
  /** Deliveries per minute at most, as typed; empty: the site's default (docs/campaigns.md). */
  throttle: string;
}

export interface LanguageDraft {
  tag: string;
  title: string;
  body: string;
}

export interface VariantDraft {
  title: string;
  body: string;
  url: string;
  icon: string;
  image: string;
}

/** The fields a variant may change, with how the form names them. */
export const VARIANT_FIELDS = [
  ['title', 'title'],
  ['body', 'message'],
  ['url', 'opens (URL)'],
  ['icon', 'icon (URL)'],
  ['image', 'image (URL)'],
] as const;

export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 4;

export const blankVariant = (): VariantDraft => ({ title: '', body: '', url: '', icon: '', image: '' });

/** A new notification for the site: it opens the site's home page with the site's icon, to everyone, now. */
export function blankDraft(site: Pick<SiteSummary, 'origin' | 'iconUrl'>): Draft {
  return {
    title: '',
    body: '',
    languages: [],
    previewLanguage: null,
    url: site.origin,
    icon: site.iconUrl ?? '',
    image: '',
    buttons: [],
    ttl: DEFAULT_TTL_SECONDS,
    urgency: DEFAULT_URGENCY,
    audience: 'all',
    segment: '',
    audienceId: '',
    subscriberId: '',
    when: 'now',
    sendAt: '',
    localTime: '09:00',
    abTest: false,
    variants: [blankVariant(), blankVariant()],
    testPercent: '20',
    winnerAfter: '60',
    throttle: '',
  };
}

/** Whom the draft goes to, as the confirmation reads it. */
export function describeAudience(draft: Draft): string {
  if (draft.audience === 'segment') return `the segment ${draft.segment}`;
  if (draft.audience === 'audience') return `the audience ${draft.audienceId}`;
  if (draft.audience === 'subscriber') return `subscriber ${draft.subscriberId.trim()}`;
  return 'all subscribers';
}
