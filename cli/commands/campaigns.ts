// `push-kit campaigns --site NAME`: the site's campaigns, newest first, with their figures and what is still
// waiting; `push-kit campaigns show ID --site NAME`: one campaign, its figures and why deliveries failed, by
// reason; `push-kit campaigns cancel ID --site NAME`: cancels a scheduled or sending campaign (what has not gone
// is withdrawn). Straight on the database, or through the running provider that holds it (cli/provider-route.ts).
// The campaigns' queries and the sites' configs load only on the database's way: a call through a provider or a
// refused id does without (a quarter of a second of start-up less).
import { cliError, fromServerError } from '../errors.ts';
import { configuredSite } from '../configured-site.ts';
import { ownerApiClient } from '../owner-api-client.ts';
import { openRouteDatabase, routeOf } from '../provider-route.ts';
import { CAMPAIGN_ID_PATTERN } from '../../contract/ids.ts';
import type { Campaign, CampaignCancelledReply, CampaignReply, CampaignsReply } from '../../contract/owner-api.ts';
import { failureLines } from '../failure-lines.ts';

export interface CampaignsOptions {
  site: string;
  database?: string;
  sites?: string[];
  /** Through a running provider's owner API with this key (or PUSHKIT_OWNER_KEY). */
  key?: string;
  /** The provider's URL (default: the one running on .push-kit/db; with a key, else the site's serverSyncUrl). */
  provider?: string;
  /** How many campaigns the list shows (default 20). */
  limit?: string;
}

const MAX_LIMIT = 100;

function limitOf(value: string | undefined): number {
  if (value === undefined) return 20;
  const limit = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT))
    throw cliError('E_ARGUMENT', { option: 'limit', rule: `must be a whole number from 1 to ${MAX_LIMIT}` });
  return limit;
}

function idOf(action: string, value: string | undefined): string {
  if (value === undefined || !CAMPAIGN_ID_PATTERN.test(value)) {
    throw cliError('E_CAMPAIGN', {
      problem:
        value === undefined ? `${action} needs the campaign id, as push-kit campaigns lists them` : `not a campaign id (digits): ${value}`,
    });
  }
  return value;
}

/** One campaign: its line, its other figures, and why its deliveries failed. */
function campaignDetail(campaign: Campaign): string[] {
  return [
    campaignLine(campaign),
    `        ${campaign.expired} expired, ${campaign.failed} failed` +
      (campaign.capped ? `, ${campaign.capped} capped` : '') +
      (campaign.dropped ? `, ${campaign.dropped} dropped in quiet hours` : '') +
      `; created ${campaign.createdAt}${campaign.completedAt ? `, completed ${campaign.completedAt}` : ''}`,
    ...revenueLines(campaign),
    ...bestHourLines(campaign),
    ...failureLines(campaign.failures),
    // as the dashboard's campaign page says it: the figures and failure reasons stay, the rows per subscriber go
    ...(campaign.prunedAfterDays != null
      ? [`        details pruned after ${campaign.prunedAfterDays} days: its figures stay, who it went to is not kept`]
      : []),
  ];
}

/** A best-hour campaign's groups side by side: clicked of delivered and the click rate (docs/campaigns.md). */
function bestHourLines(campaign: Campaign): string[] {
  if (!campaign.bestHour) return [];
  const group = (name: string, figures: NonNullable<Campaign['bestHour']>['bestHour']) =>
    `        ${name}: ${figures.clicked} clicked of ${figures.delivered} delivered` +
    (figures.clickRate === null ? '' : ` (${(figures.clickRate * 100).toFixed(1)}%)`);
  return [
    group('at their best hour', campaign.bestHour.bestHour),
    group(`sent at once (${Math.round(campaign.bestHour.holdoutShare * 100)}% held out)`, campaign.bestHour.holdout),
  ];
}

/** Orders after a click and their totals per currency (never added across currencies); each A/B variant's too. */
function revenueLines(campaign: Campaign): string[] {
  if (!campaign.conversions) return [];
  const revenue = (list: Campaign['revenue'] | undefined) =>
    (list ?? []).map(({ currency, amount }) => `${amount.toFixed(2)} ${currency}`).join(', ') || 'none';
  return [
    `        ${campaign.conversions} conversion${campaign.conversions === 1 ? '' : 's'}, revenue ${revenue(campaign.revenue)}`,
    ...campaign.variants.map(
      (variant) => `        variant ${String.fromCharCode(65 + variant.variant)}: revenue ${revenue(variant.revenue)}`,
    ),
  ];
}

/** One line per campaign: id, status, what it said, and its figures. */
function campaignLine(campaign: Campaign): string {
  const figures = [
    `${campaign.recipients} recipients`,
    `${campaign.delivered} delivered`,
    `${campaign.shown} shown`,
    `${campaign.clicked} clicked`,
    ...(campaign.pending ? [`${campaign.pending} waiting${campaign.nextDueAt ? ` (next ${campaign.nextDueAt})` : ''}`] : []),
    ...(campaign.throttlePerMinute !== null ? [`${campaign.throttlePerMinute} a minute`] : []),
    ...(campaign.deliverAt === 'best-hour' ? ["at each subscriber's best hour"] : []),
    // a scheduled campaign's next due time says it all; a paced one's end is its own
    ...(campaign.estimatedFinishAt && (campaign.throttlePerMinute !== null || campaign.deliverAt)
      ? [`finishes by ${campaign.estimatedFinishAt}`]
      : []),
    ...(campaign.failed ? [`${campaign.failed} failed`] : []),
    ...(campaign.status === 'waiting_for_key' ? ["held until the site's VAPID key file can sign (.push-kit/keys/)"] : []),
  ];
  return `${campaign.campaignId.padStart(6)}  ${campaign.status.padEnd(9)}  ${JSON.stringify(campaign.title)}  ${figures.join(', ')}`;
}

export async function runCampaigns(action: string | undefined, id: string | undefined, options: CampaignsOptions): Promise<number> {
  const cancelling = action === 'cancel';
  const showing = action === 'show';
  const campaignId = cancelling || showing ? idOf(action!, id) : undefined;
  const limit = limitOf(options.limit);
  const configured = () => configuredSite(options.site, options.sites);
  const route = await routeOf(options.site, options, async () => (await configured()).config.serverSyncUrl);

  let campaigns: Campaign[] | undefined;
  let cancelled: number | undefined;
  if (route.via === 'provider') {
    const call = ownerApiClient(route.url, options.site, route.key);
    if (showing) campaigns = [(await call<CampaignReply>(`/campaigns/${campaignId}`)).campaign];
    else if (campaignId) cancelled = (await call<CampaignCancelledReply>(`/campaigns/${campaignId}/cancel`, { method: 'POST' })).cancelled;
    else campaigns = (await call<CampaignsReply>(`/campaigns?limit=${limit}`)).campaigns;
  } else {
    const site = await configured();
    const [{ cancelSiteCampaign, siteCampaign, siteCampaigns }, { COMMAND_LINE_MEMBER, recordAudit }] = await Promise.all([
      import('../../server/campaigns/index.ts'),
      import('../../server/http/audit-log.ts'),
    ]);
    const db = await openRouteDatabase(route, `push-kit campaigns ... --site ${site.name}`);
    try {
      if (showing) campaigns = [await siteCampaign(db, site, campaignId!)];
      else if (campaignId) {
        cancelled = await cancelSiteCampaign(db, site, campaignId);
        // straight on the database: the audit log names the command line (docs/members.md)
        await recordAudit(db, site.hash, COMMAND_LINE_MEMBER, 'campaign.cancel', campaignId);
      } else campaigns = await siteCampaigns(db, site, { limit, offset: 0 });
    } catch (error) {
      fromServerError(error);
    } finally {
      await db.close();
    }
  }
  if (showing) {
    for (const line of campaignDetail(campaigns![0]!)) console.log(line);
    return 0;
  }
  if (campaignId) {
    console.log(`campaign ${campaignId} cancelled: ${cancelled} waiting deliver${cancelled === 1 ? 'y' : 'ies'} withdrawn`);
    return 0;
  }
  if (!campaigns?.length) {
    console.log(`${options.site}: no campaigns yet`);
    return 0;
  }
  for (const campaign of campaigns) console.log(campaignLine(campaign));
  return 0;
}
