// The owner API's campaign screen: the list's filter and page, a campaign's figures over time and by browser
// and variant, the three rates and what each means (shown on screen and written in the CSV export), and the
// reply of "send again to those who did not click". Browser-safe: the dashboard and the provider both import it.
import type { Campaign } from './owner-api.ts';

/**
 * The statuses the owner filters the list by, in words: scheduled (waiting for its time), sending (pending,
 * sending or waiting for a key), sent (finished, something delivered or nothing failed), cancelled, failed
 * (finished with every delivery failed or expired). Drafts are compose's (server/compose), not campaigns.
 */
export const CAMPAIGN_LIST_STATUSES = ['scheduled', 'sending', 'sent', 'cancelled', 'failed'] as const;
export type CampaignListStatus = (typeof CAMPAIGN_LIST_STATUSES)[number];
export const CAMPAIGN_SEARCH_MAX_LENGTH = 200;

/** GET sites/:name/campaigns?status=&q=&order=&limit=&offset= */
export interface CampaignListQuery {
  status?: CampaignListStatus;
  /** Words of the title or body (any case). */
  q?: string;
  /** By creation: newest first (the default) or oldest first. */
  order?: 'newest' | 'oldest';
  limit?: number;
  offset?: number;
}

export interface CampaignPage {
  campaigns: Campaign[];
  /** Campaigns matching the filter, on every page. */
  total: number;
  limit: number;
  offset: number;
}

/** One step of a campaign's figures over time: deliveries that went, reports of shown and clicked. */
export interface CampaignTimePoint {
  /** The start of the step (ISO, UTC). */
  at: string;
  delivered: number;
  shown: number;
  clicked: number;
}

/** A campaign's figures for one browser, or one A/B variant. */
export interface CampaignBreakdownRow {
  /** The browser's name ("unknown" when none is stored), or the variant's number. */
  key: string;
  recipients: number;
  sent: number;
  delivered: number;
  shown: number;
  clicked: number;
}

/** GET sites/:name/campaigns/:id/figures */
export interface CampaignFigures {
  /** "hour" while the campaign's figures span two days or less, else "day". */
  step: 'hour' | 'day';
  timeline: CampaignTimePoint[];
  byBrowser: CampaignBreakdownRow[];
  byVariant: CampaignBreakdownRow[];
}

/** POST sites/:name/campaigns/:id/resend: a new campaign to those it was delivered to who did not click. */
export interface CampaignResent {
  campaignId: string;
  recipients: number;
  resendOf: string;
}

export interface RateInputs {
  sent: number;
  delivered: number;
  shown: number;
  clicked: number;
}

export interface CampaignRates {
  /** delivered / sent, or null before anything was sent. */
  deliveryRate: number | null;
  /** shown / delivered, or null before anything was delivered. */
  shownRate: number | null;
  /** clicked / shown, or null before anything was shown. */
  clickRate: number | null;
}

export const RATE_NAMES: Record<keyof CampaignRates, string> = {
  deliveryRate: 'Delivery rate',
  shownRate: 'Shown rate',
  clickRate: 'Click rate',
};

/** What each rate is, in the owner's words (the dashboard's legend and hover, the CSV's header note). */
export const RATE_DEFINITIONS: Record<keyof CampaignRates, string> = {
  deliveryRate: 'Delivered ÷ sent: of the notifications the sender tried, the share the push service took.',
  shownRate: "Shown ÷ delivered: of those delivered, the share the subscriber's browser reported shown.",
  clickRate: 'Clicked ÷ shown: of those shown, the share clicked (each subscriber once).',
};

const share = (part: number, whole: number) => (whole > 0 ? part / whole : null);

export function campaignRates(figures: RateInputs): CampaignRates {
  return {
    deliveryRate: share(figures.delivered, figures.sent),
    shownRate: share(figures.shown, figures.delivered),
    clickRate: share(figures.clicked, figures.shown),
  };
}

/** A rate as the screen and the CSV write it: "12.5%", or "—" when it has no base yet. */
export function formatRate(rate: number | null): string {
  return rate === null ? '—' : `${(rate * 100).toFixed(1)}%`;
}
