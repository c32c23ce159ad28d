// Events (subscribed, unsubscribed, segment adds, notification reports) are kept for a retention period
// (default 180 days, `--event-retention-days` / PUSHKIT_EVENT_RETENTION_DAYS) and pruned at start and daily,
// oldest first, in batches: one short statement at a time, so requests are never held behind a long delete.
import type { Queryable } from './database.ts';
import { keepNotificationDays, quarterOf } from './notification-days-kept.ts';

export const DEFAULT_EVENT_RETENTION_DAYS = 180;
export const EVENT_RETENTION_ENV = 'PUSHKIT_EVENT_RETENTION_DAYS';
const PRUNE_BATCH = 1000;

/**
 * Deletes events older than `days`; resolves with how many. A campaign's click events are left to the campaigns'
 * own prune (server/campaigns/click-pruning.ts), which keeps the campaign's revenue as it deletes them; the shown
 * reports' counts are kept for the overview's days (notification-days-kept.ts).
 */
export async function pruneEvents(db: Queryable, days: number, batch = PRUNE_BATCH): Promise<number> {
  let deleted = 0;
  for (;;) {
    // a notification's shown reports are kept per quarter hour for the overview's days
    const { rows } = await db.query<{ count: number }>(
      `WITH gone AS (
         DELETE FROM events WHERE id IN (
           SELECT id FROM events WHERE created_at < now() - make_interval(days => $1::int) AND NOT (kind = 'clicked' AND campaign_id IS NOT NULL)
           ORDER BY created_at, id LIMIT $2
         ) RETURNING site_hash, kind, campaign_id, created_at
       ), kept AS (
         ${keepNotificationDays(['shown'], `SELECT site_hash, ${quarterOf('created_at')}, count(*) FROM gone WHERE kind = 'shown' AND campaign_id IS NOT NULL GROUP BY 1, 2`)}
       )
       SELECT count(*)::int AS count FROM gone`,
      [days, batch],
    );
    deleted += rows[0]!.count;
    if (rows[0]!.count < batch) return deleted;
  }
}

/** A retention setting (days, a whole number >= 1), or null when it is not one. */
export function retentionDays(value: string | number | undefined): number | null {
  if (value === undefined || value === '') return DEFAULT_EVENT_RETENTION_DAYS;
  const days = typeof value === 'number' ? value : /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  return Number.isInteger(days) && days >= 1 && days <= 36_500 ? days : null;
}
