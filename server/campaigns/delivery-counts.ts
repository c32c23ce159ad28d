// A campaign's figures by delivery status, kept apart from its delivery rows (migration 31): statement triggers
// on `deliveries` add a delta row per (campaign, status) a statement changed, and a row that is deleted once it
// has a result (its subscriber erased, or pruned after the reporting window) keeps its count. Reading a
// campaign's figures sums its deltas (an index range, not its delivery rows); folding replaces the deltas of a
// campaign by one row per status.
import type { Queryable } from '../db/database.ts';
import { foldDeliveryBreakdown } from './delivery-breakdown.ts';
import { foldCampaignRows } from './fold-campaign-rows.ts';

/**
 * SQL of one row of a campaign's counts by status (recipients, pending, delivered, failed, expired, capped,
 * dropped), for the campaign id `idSql` (a column such as `c.id`, or a parameter): a LATERAL subquery.
 */
export function deliveryCountsSql(idSql: string): string {
  return `(SELECT coalesce(sum(f.count), 0) AS recipients,
      coalesce(sum(f.count) FILTER (WHERE f.status = 'pending'), 0) AS pending,
      coalesce(sum(f.count) FILTER (WHERE f.status = 'delivered'), 0) AS delivered,
      coalesce(sum(f.count) FILTER (WHERE f.status = 'failed'), 0) AS failed,
      coalesce(sum(f.count) FILTER (WHERE f.status = 'expired'), 0) AS expired,
      coalesce(sum(f.count) FILTER (WHERE f.status = 'capped'), 0) AS capped,
      coalesce(sum(f.count) FILTER (WHERE f.status = 'dropped'), 0) AS dropped
    FROM delivery_counts f WHERE f.campaign_id = ${idSql})`;
}

/** Folds a campaign's deltas into one row per status, and its breakdown's (fold-campaign-rows.ts). */
export async function foldDeliveryCounts(db: Queryable, campaignId: string): Promise<void> {
  await foldCampaignRows(db, 'delivery_counts', ['status'], campaignId);
  await foldDeliveryBreakdown(db, campaignId);
}
