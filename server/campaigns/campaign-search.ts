// The owner's campaign list, filtered: by status in words (contract/campaign-report.ts), by words of the title or
// body, oldest or newest first; and how many campaigns match on every page. The filter is SQL appended to the
// list's WHERE (campaign-store.ts's listCampaigns), its placeholders numbered after the caller's own.
import type { Queryable } from '../db/database.ts';
import { deliveryCountsSql } from './delivery-counts.ts';
import type { CampaignListQuery, CampaignListStatus } from '../../contract/campaign-report.ts';

export interface CampaignFilter {
  /** " AND ..." conditions on campaigns `c`, or "". */
  where: string;
  params: unknown[];
  order: 'newest' | 'oldest';
}

export const NO_CAMPAIGN_FILTER: CampaignFilter = { where: '', params: [], order: 'newest' };

/**
 * Finished with every delivery failed or expired (none delivered, something tried), by the campaign's folded
 * counts (delivery-counts.ts), which outlast its delivery rows.
 */
const FAILED = `(c.status = 'done' AND EXISTS (SELECT 1 FROM ${deliveryCountsSql('c.id')} n WHERE n.delivered = 0 AND n.failed + n.expired > 0))`;

const STATUS_SQL: Record<CampaignListStatus, string> = {
  scheduled: `c.status = 'scheduled'`,
  sending: `c.status IN ('pending', 'sending', 'waiting_for_key')`,
  sent: `(c.status = 'done' AND NOT ${FAILED})`,
  cancelled: `c.status = 'cancelled'`,
  failed: FAILED,
};

/** The filter of a list query, its placeholders from `$firstParam`. */
export function campaignFilter(query: Pick<CampaignListQuery, 'status' | 'q' | 'order'>, firstParam: number): CampaignFilter {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (query.status) conditions.push(STATUS_SQL[query.status]);
  const words = (query.q ?? '').trim().toLowerCase().split(/\s+/).filter(Boolean);
  // each word somewhere in the title or body; position(), not LIKE, so % and _ are plain text
  for (const word of words) {
    params.push(word);
    conditions.push(`position($${firstParam + params.length - 1} IN lower(c.title || ' ' || c.body)) > 0`);
  }
  return { where: conditions.map((condition) => ` AND ${condition}`).join(''), params, order: query.order ?? 'newest' };
}

/** How many of the site's campaigns (automated messages aside) the filter matches. */
export async function countCampaigns(db: Queryable, siteHash: string, query: Pick<CampaignListQuery, 'status' | 'q'>): Promise<number> {
  const filter = campaignFilter(query, 2);
  const { rows } = await db.query<{ count: string }>(
    `SELECT count(*) AS count FROM campaigns c WHERE c.site_hash = $1 AND c.automation IS NULL${filter.where}`,
    [siteHash, ...filter.params],
  );
  return Number(rows[0]!.count);
}
