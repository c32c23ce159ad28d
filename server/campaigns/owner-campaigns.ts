// What a site's owner does with campaigns, written once for the owner API's routes, `push-kit send`,
// `push-kit campaigns` and the package's sendCampaign: each function checks what it is given against the site
// and throws a catalogue ServerError (E_SUBSCRIBER_UNKNOWN, E_SEGMENT_UNKNOWN, E_CAMPAIGN_UNKNOWN,
// E_CAMPAIGN_NOT_CANCELLABLE) naming the parameter at fault.
import type { Database, Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import type { HostedSite } from '../sites.ts';
import { requireSegment } from '../segments/index.ts';
import { requireAudience } from '../audiences/index.ts';
import { requireSubscriber } from '../subscribers/index.ts';
import { cancelCampaign, createCampaign, getCampaign, listCampaigns } from './campaign-store.ts';
import type { CampaignInput } from '../../contract/campaign-input.ts';
import type { Campaign, CreatedCampaign } from '../../contract/owner-api.ts';

/** Creates the campaign for its audience (all, a stored segment or one subscriber of this site). */
export async function createSiteCampaign(db: Database, site: HostedSite, input: CampaignInput, now?: number): Promise<CreatedCampaign> {
  if (input.subscriberId) await requireSubscriber(db, site, input.subscriberId, 'subscriberId');
  if (input.segment) await requireSegment(db, site, input.segment, 'segment');
  if (input.audience) await requireAudience(db, site, input.audience, 'audience');
  // the site's send rate for a campaign that names none (site config campaigns.throttlePerMinute)
  const throttlePerMinute = input.throttlePerMinute ?? site.config.campaigns.throttlePerMinute;
  return createCampaign(db, site, throttlePerMinute === undefined ? input : { ...input, throttlePerMinute }, now);
}

/** Withdraws what has not gone of a scheduled or sending campaign; resolves with the deliveries withdrawn. */
export async function cancelSiteCampaign(db: Database, site: HostedSite, id: string): Promise<number> {
  const cancelled = await cancelCampaign(db, site.hash, id);
  if (cancelled !== null) return cancelled;
  const campaign = await getCampaign(db, site.hash, id);
  if (!campaign) throw new ServerError('E_CAMPAIGN_UNKNOWN', { param: 'id', id, site: site.name });
  throw new ServerError('E_CAMPAIGN_NOT_CANCELLABLE', { id, status: campaign.status });
}

/** One campaign; `now` (the provider's clock) is what its estimated finish is reckoned from. */
export async function siteCampaign(db: Queryable, site: HostedSite, id: string, now?: number): Promise<Campaign> {
  const campaign = await getCampaign(db, site.hash, id, site.config.conversionWindowHours, now);
  if (!campaign) throw new ServerError('E_CAMPAIGN_UNKNOWN', { param: 'id', id, site: site.name });
  return campaign;
}

/** The owner's campaigns, newest first. */
export function siteCampaigns(db: Queryable, site: HostedSite, page: { limit: number; offset: number }): Promise<Campaign[]> {
  return listCampaigns(db, site.hash, page.limit, page.offset, site.config.conversionWindowHours);
}
