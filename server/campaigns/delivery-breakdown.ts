// A campaign's figures by A/B variant, held-out group, language, browser and hour, kept apart from its delivery
// rows and report events (migration 33): statement triggers add a delta row when a delivery gets its result and
// when a subscriber first reports a notification shown, clicked or closed. Nothing takes them off, so the figures
// stay when a subscriber is deleted (their rows and events go) and when the campaign's delivery rows are pruned
// after the reporting window. Deliveries still pending are counted from their rows. Folding replaces a campaign's
// deltas by one row per distinct key (a few hundred at most: compact once the rows are gone).
import type { Queryable } from '../db/database.ts';
import { foldCampaignRows } from './fold-campaign-rows.ts';

/** The kinds that are a delivery's status (the rest are first reports: shown, clicked, closed). */
const STATUSES = `('pending', 'delivered', 'failed', 'expired', 'capped', 'dropped')`;

export type BreakdownKey = 'variant' | 'holdout' | 'language' | 'browser';

export interface BreakdownFigures {
  variant: number | null;
  holdout: boolean | null;
  language: string | null;
  browser: string | null;
  recipients: number;
  sent: number;
  delivered: number;
  shown: number;
  clicked: number;
}

/**
 * A campaign's figures grouped by `keys` (the others are null): recipients (every delivery, pending ones from
 * their rows), sent (delivered, failed or expired), delivered, and subscribers who reported it shown and clicked.
 * Groups without a delivery are left out.
 */
export async function breakdownOf(db: Queryable, campaignId: string, keys: BreakdownKey[]): Promise<BreakdownFigures[]> {
  const columns = ['variant', 'holdout', 'language', 'browser'].map((key) => (keys.includes(key as BreakdownKey) ? `f.${key}` : 'NULL'));
  const { rows } = await db.query<Record<string, string | number | boolean | null>>(
    `SELECT ${columns.map((column, index) => `${column} AS k${index}`).join(', ')},
       sum(f.count) FILTER (WHERE f.kind IN ${STATUSES}) AS recipients,
       sum(f.count) FILTER (WHERE f.kind IN ('delivered', 'failed', 'expired')) AS sent,
       sum(f.count) FILTER (WHERE f.kind = 'delivered') AS delivered,
       sum(f.count) FILTER (WHERE f.kind = 'shown') AS shown,
       sum(f.count) FILTER (WHERE f.kind = 'clicked') AS clicked
     FROM (
       SELECT b.kind, b.variant, b.holdout, b.language, b.browser, b.count FROM delivery_breakdown b WHERE b.campaign_id = $1
       UNION ALL
       SELECT 'pending', d.variant, d.holdout, s.language, s.browser_type, count(*) FROM deliveries d
       LEFT JOIN subscribers s ON s.id = d.subscriber_id WHERE d.campaign_id = $1 AND d.status = 'pending' GROUP BY 2, 3, 4, 5
     ) f GROUP BY ${columns.map((_, index) => index + 1).join(', ')}
     HAVING coalesce(sum(f.count) FILTER (WHERE f.kind IN ${STATUSES}), 0) > 0`,
    [campaignId],
  );
  return rows.map((row) => ({
    variant: row.k0 === null ? null : Number(row.k0),
    holdout: row.k1 as boolean | null,
    language: row.k2 as string | null,
    browser: row.k3 as string | null,
    recipients: Number(row.recipients ?? 0),
    sent: Number(row.sent ?? 0),
    delivered: Number(row.delivered ?? 0),
    shown: Number(row.shown ?? 0),
    clicked: Number(row.clicked ?? 0),
  }));
}

/** A campaign's deliveries, first shown and first clicked reports by hour (UTC), oldest first. */
export async function hourlyOf(
  db: Queryable,
  campaignId: string,
): Promise<{ hour: Date; kind: 'delivered' | 'shown' | 'clicked'; count: number }[]> {
  const { rows } = await db.query<{ hour: Date; kind: 'delivered' | 'shown' | 'clicked'; count: string }>(
    `SELECT hour, kind, sum(count) AS count FROM delivery_breakdown
     WHERE campaign_id = $1 AND kind IN ('delivered', 'shown', 'clicked') GROUP BY 1, 2 HAVING sum(count) > 0 ORDER BY 1`,
    [campaignId],
  );
  return rows.map((row) => ({ hour: new Date(row.hour), kind: row.kind, count: Number(row.count) }));
}

/** Subscribers who first reported a campaign shown, clicked and closed: kept when they or their events go. */
export function reportCountsSql(idSql: string): string {
  return `(SELECT coalesce(sum(b.count) FILTER (WHERE b.kind = 'shown'), 0) AS shown,
      coalesce(sum(b.count) FILTER (WHERE b.kind = 'clicked'), 0) AS clicked,
      coalesce(sum(b.count) FILTER (WHERE b.kind = 'closed'), 0) AS closed
    FROM delivery_breakdown b WHERE b.campaign_id = ${idSql})`;
}

/** Folds a campaign's deltas into one row per key (fold-campaign-rows.ts). */
export async function foldDeliveryBreakdown(db: Queryable, campaignId: string): Promise<void> {
  await foldCampaignRows(db, 'delivery_breakdown', ['kind', 'variant', 'holdout', 'language', 'browser', 'hour'], campaignId);
}
