// The push message of one delivery: a declarative push message (contract/push-payload.ts) built from the
// campaign, with the delivery's click token on every page a click opens.
import type { CampaignAction } from '../../contract/campaign-input.ts';
import { CLICK_PARAM, DECLARATIVE_PUSH_MAGIC, type DeclarativePushMessage } from '../../contract/push-payload.ts';
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
}

/** Where a click may land: the site's origin and its notificationClickOrigins (as the worker checks). */
export interface LandingOrigins {
  origin: string;
  notificationClickOrigins?: readonly string[];
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
function landingUrl(wanted: string | null | undefined, site: LandingOrigins, clickToken: string | undefined): string {
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
  if (!clickToken) return url.href;
  const marked = new URL(url.href);
  marked.searchParams.set(CLICK_PARAM, clickToken);
  return marked.href;
}

export function declarativePayload(campaign: PayloadCampaign, delivery: PayloadDelivery, site: LandingOrigins): DeclarativePushMessage {
  const click = delivery.secretHash ? clickTokenOf(delivery.deliveryId, delivery.secretHash) : undefined;
  const navigate = landingUrl(campaign.url, site, click);
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
              navigate: url ? landingUrl(url, site, click) : navigate,
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
