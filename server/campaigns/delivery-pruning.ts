// Delivery rows are working state: what a sender claims and marks, what the frequency cap (a week) and a
// subscriber's record read. A campaign's figures live in its folded counts (delivery-counts.ts), so once a
// campaign has been done for the reporting window (default 30 days, PUSHKIT_DELIVERY_RETENTION_DAYS) its delivery
// rows are deleted, in batches, with the event pruning at start and daily, and never while a report of the campaign
// can still count (its TTL after it was done: a shorter window waits for it). An automation's messages keep theirs
// (its figures are counted from them). The overview's delivered per day is kept per quarter hour (migration 44).
// What the report still reads per subscriber is kept as the rows go: the
// failure groups by reason (a trigger on DELETE, migration 39, folded here) and an A/B test's clickers with their
// variant (migration 40, written by the deleting statement), for each variant's revenue.
import type { Queryable } from '../db/database.ts';
import { keepNotificationDays, quarterOf } from '../db/notification-days-kept.ts';
import { foldDeliveryCounts } from './delivery-counts.ts';
import { foldFailureCounts } from './delivery-failures.ts';
import { REPORT_WINDOW_MIN_SECONDS } from './delivered-report.ts';

export const DEFAULT_DELIVERY_RETENTION_DAYS = 30;
export const DELIVERY_RETENTION_ENV = 'PUSHKIT_DELIVERY_RETENTION_DAYS';
const PRUNE_BATCH = 10_000;

/** The reporting window in days (a whole number >= 0), or null when the setting is not one. */
export function deliveryRetentionDays(value: string | undefined = process.env[DELIVERY_RETENTION_ENV]): number | null {
  if (value === undefined || value.trim() === '') return DEFAULT_DELIVERY_RETENTION_DAYS;
  return /^\d{1,5}$/.test(value.trim()) ? Number(value.trim()) : null;
}

/**
 * Deletes the delivery rows of the campaigns done more than `days` ago, a batch per statement, and folds their
 * counts; resolves with how many rows went.
 */
export async function pruneDeliveries(db: Queryable, days: number, batch = PRUNE_BATCH): Promise<number> {
  // Never while a report can still count (delivered-report.ts: within the TTL after its delivery, which is before the
  // campaign was done): the report needs its row, to prove who clicked and to know their variant.
  const { rows: campaigns } = await db.query<{ id: string }>(
    `SELECT c.id FROM campaigns c
     WHERE c.automation IS NULL AND c.completed_at < now() - make_interval(days => $1::int)
       AND EXISTS (SELECT 1 FROM deliveries d WHERE d.campaign_id = c.id)
       AND (c.completed_at < now() - make_interval(secs => greatest(c.ttl, $2::int))
         OR NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'delivered'))
     ORDER BY c.id`,
    [days, REPORT_WINDOW_MIN_SECONDS],
  );
  let deleted = 0;
  for (const { id } of campaigns) {
    // what needs the rows (resend to non-clickers) says they were pruned, and after how many days
    await db.query('UPDATE campaigns SET pruned_after_days = $2 WHERE id = $1', [id, days]);
    for (;;) {
      // A done campaign's rows get no more results, and past its report window no more clicks: the clickers kept
      // here are all it will have.
      const { rows } = await db.query<{ count: number }>(
        `WITH gone AS (
           DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE campaign_id = $1 LIMIT $2)
           RETURNING subscriber_id, variant, status, updated_at
         ), days AS (
           ${keepNotificationDays(
             ['delivered'],
             `SELECT c.site_hash, ${quarterOf('g.updated_at')}, count(*) FROM gone g JOIN campaigns c ON c.id = $1
               WHERE g.status = 'delivered' GROUP BY 1, 2`,
           )}
         ), clickers AS (
           INSERT INTO campaign_variant_clickers (campaign_id, subscriber_id, variant)
           SELECT $1, g.subscriber_id, g.variant FROM gone g WHERE g.variant IS NOT NULL AND EXISTS (
             SELECT 1 FROM events e WHERE e.campaign_id = $1 AND e.kind = 'clicked' AND e.subscriber_id = g.subscriber_id)
           ON CONFLICT DO NOTHING
         )
         SELECT count(*)::int AS count FROM gone`,
        [id, batch],
      );
      deleted += rows[0]!.count;
      if (rows[0]!.count < batch) break;
    }
    await foldDeliveryCounts(db, String(id));
    await foldFailureCounts(db, String(id));
  }
  return deleted;
}
