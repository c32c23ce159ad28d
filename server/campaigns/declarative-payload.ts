// The push message of one delivery: a declarative push message (contract/push-payload.ts) built from the
// campaign, with the delivery's click token on every page a click opens and, unless the site turns it off, UTM
// parameters naming push-kit and the campaign (docs/languages.md#utm-parameters).
import type { CampaignAction } from '../../contract/campaign-input.ts';
import { CLICK_PARAM, DECLARATIVE_PUSH_MAGIC, type DeclarativePushMessage } from '../../contract/push-payload.ts';
import { randomUUID } from 'node:crypto';
import { clickTokenOf } from './click-token.ts';

export interface PayloadCampaign {
  campaignId: string;
  title: string;
  body: string;
  url: string | null;
  icon: string | null;
  image?: string | null;
  actions?: CampaignAction[] | null;
  appBadge?: number | null;
  /** The notification's tag; by default the campaign's, so that a copy sent twice replaces the first. */
  tag?: string | null;
  /** utm_campaign of its landing URLs: the campaign's id, or automation-<kind> for an automated message. */
  utmCampaign?: string;
}

/** Where a click may land: the site's origin and its notificationClickOrigins (as the worker checks). */
export interface LandingOrigins {
  origin: string;
  notificationClickOrigins?: readonly string[];
  /** false: landing URLs get no UTM parameters (site config `utm`); on when absent. */
  utm?: boolean;
}

/** The UTM parameters push-kit adds to a landing URL that has none (utm_campaign is the campaign's). */
export const UTM_SOURCE = 'push-kit';
export const UTM_MEDIUM = 'push';

/** The URL with utm_source, utm_medium and utm_campaign, unless it has a utm_ parameter of its own already. */
export function withUtm(url: URL, campaign: string): URL {
  if ([...url.searchParams.keys()].some((key) => key.toLowerCase().startsWith('utm_'))) return url;
  const tagged = new URL(url.href);
  tagged.searchParams.append('utm_source', UTM_SOURCE);
  tagged.searchParams.append('utm_medium', UTM_MEDIUM);
  tagged.searchParams.append('utm_campaign', campaign);
  return tagged;
}

export interface PayloadDelivery {
  deliveryId: string;
  /** The subscriber's stored secret hash; a subscriber without one gets no click token. */
  secretHash: string | null;
}

/**
 * The page a click opens, with the click token: the wanted URL when it is on one of the landing origins, else
 * the site's home page. A browser that handles the message itself opens `navigate` as is, with no worker to
 * check it, so the provider applies the worker's rule before sending.
 */
function landingUrl(
  wanted: string | null | undefined,
  site: LandingOrigins,
  clickToken: string | undefined,
  utmCampaign: string | undefined,
): string {
  const home = new URL('/', site.origin);
  let url = home;
  if (wanted) {
    try {
      const candidate = new URL(wanted, home);
      if (candidate.origin === home.origin || (site.notificationClickOrigins ?? []).includes(candidate.origin)) url = candidate;
    } catch {
      // Not a URL: the home page.
    }
  }
  if (utmCampaign !== undefined && site.utm !== false) url = withUtm(url, utmCampaign);
  if (!clickToken) return url.href;
  const marked = new URL(url.href);
  marked.searchParams.set(CLICK_PARAM, clickToken);
  return marked.href;
}

export function declarativePayload(campaign: PayloadCampaign, delivery: PayloadDelivery, site: LandingOrigins): DeclarativePushMessage {
  return declarativePayloadWithToken(
    campaign,
    delivery.secretHash ? clickTokenOf(delivery.deliveryId, delivery.secretHash) : undefined,
    site,
  );
}

function declarativePayloadWithToken(campaign: PayloadCampaign, click: string | undefined, site: LandingOrigins): DeclarativePushMessage {
  const utm = campaign.utmCampaign ?? campaign.campaignId;
  const navigate = landingUrl(campaign.url, site, click, utm);
  return {
    web_push: DECLARATIVE_PUSH_MAGIC,
    notification: {
      title: campaign.title,
      navigate,
      body: campaign.body,
      ...(campaign.icon ? { icon: campaign.icon } : {}),
      ...(campaign.image ? { image: campaign.image } : {}),
      // A campaign's copy sent twice (a sender killed before it saved the push service's answer) replaces the
      // first on the device instead of showing the message again; an automation's own tag (a newer cart
      // reminder replaces an older one) does the same across its messages.
      tag: campaign.tag || `pushkit-campaign-${campaign.campaignId}`,
      ...(campaign.actions?.length
        ? {
            actions: campaign.actions.map(({ action, title, url }) => ({
              action,
              title,
              navigate: url ? landingUrl(url, site, click, utm) : navigate,
            })),
          }
        : {}),
      data: { campaignId: campaign.campaignId, ...(click ? { click } : {}) },
    },
    ...(typeof campaign.appBadge === 'number' ? { app_badge: campaign.appBadge } : {}),
    // The worker reports the notification shown (the campaign's figures), so it must run.
    mutable: true,
  };
}

/**
 * A stand-in for the click token while a campaign's message is made once: random per process, so no campaign's
 * text contains it, and of the token's own characters (digits, letters, `.`, `-`, `_`), which neither a URL's query
 * nor JSON escapes, so that the real token takes its place unchanged.
 */
const TOKEN_STAND_IN = `pk${randomUUID().replaceAll('-', '')}`;
/** Messages made, per site: the JSON text around each place of the token. */
const templates = new WeakMap<LandingOrigins, Map<string, string[]>>();
/** Distinct messages kept per site (automated messages vary per subscriber); past it the cache starts afresh. */
const MAX_TEMPLATES = 1000;

/**
 * JSON.stringify(declarativePayload(...)), the same text, made once per campaign message rather than per delivery:
 * the landing URLs (parsed, checked against the landing origins, tagged with UTM) are the same for every delivery of
 * a campaign, and only the click token differs.
 */
export function declarativePayloadText(campaign: PayloadCampaign, delivery: PayloadDelivery, site: LandingOrigins): string {
  const withClick = Boolean(delivery.secretHash);
  const key = JSON.stringify([
    campaign.campaignId,
    campaign.title,
    campaign.body,
    campaign.url,
    campaign.icon,
    campaign.image ?? null,
    campaign.actions ?? null,
    campaign.appBadge ?? null,
    campaign.tag ?? null,
    campaign.utmCampaign ?? null,
    withClick,
    // a site's settings read in place, should its object ever change
    site.origin,
    site.notificationClickOrigins ?? null,
    site.utm ?? null,
  ]);
  let bySite = templates.get(site);
  if (!bySite) templates.set(site, (bySite = new Map()));
  let parts = bySite.get(key);
  if (!parts) {
    if (bySite.size >= MAX_TEMPLATES) bySite.clear();
    const text = JSON.stringify(declarativePayloadWithToken(campaign, withClick ? TOKEN_STAND_IN : undefined, site));
    parts = text.split(TOKEN_STAND_IN);
    bySite.set(key, parts);
  }
  return parts.length === 1 ? parts[0]! : parts.join(clickTokenOf(delivery.deliveryId, delivery.secretHash!));
}
