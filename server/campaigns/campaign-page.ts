// The owner's campaign list as the Campaigns screen pages it: filtered by status and words, oldest or newest
// first, with how many match in all.
import type { Queryable } from '../db/database.ts';
import type { HostedSite } from '../sites.ts';
import { listCampaigns } from './campaign-store.ts';
import { campaignFilter, countCampaigns } from './campaign-search.ts';
import type { CampaignListQuery, CampaignPage } from '../../contract/campaign-report.ts';

export async function siteCampaignPage(
  db: Queryable,
  site: HostedSite,
  query: CampaignListQuery & { limit: number; offset: number },
  now?: number,
): Promise<CampaignPage> {
  const [campaigns, total] = await Promise.all([
    listCampaigns(db, site.hash, query.limit, query.offset, site.config.conversionWindowHours, campaignFilter(query, 5), now),
    countCampaigns(db, site.hash, query),
  ]);
  return { campaigns, total, limit: query.limit, offset: query.offset };
}
