// Subscription health of a site, for the owner (GET sites/:name/subscriber-health and the dashboard's overview):
// subscribers at risk, whose browser delivered none of their last few messages to the screen (no `shown`
// report from the service worker: a browser dropping pushes, a worker gone, a site Safari revoked), and the
// subscribers push services reported gone (404/410), day by day: days of the owner's display zone, as the overview's
// charts count them.
import type { Queryable } from '../db/database.ts';
import { zoneDays } from '../db/zone-days.ts';
import type { SubscriberHealth } from '../../contract/automations.ts';

export const AT_RISK_DELIVERIES_DEFAULT = 3;
export const AT_RISK_DELIVERIES_MAX = 20;
export async function subscriberHealth(
  db: Queryable,
  siteHash: string,
  days: number,
  deliveries: number,
  zone = 'UTC',
  now = Date.now(),
): Promise<SubscriberHealth> {
  // Only subscribers with `deliveries` delivered messages are judged; one not yet sent that many is not at risk.
  const atRisk = await db.query<{ count: string }>(
    `SELECT count(*) AS count FROM subscribers s
     CROSS JOIN LATERAL (
       SELECT count(*) AS delivered,
              count(*) FILTER (WHERE EXISTS (
                SELECT 1 FROM events e WHERE e.subscriber_id = s.id AND e.campaign_id = last.campaign_id AND e.kind = 'shown'
              )) AS shown
       FROM (
         SELECT d.campaign_id FROM deliveries d WHERE d.subscriber_id = s.id AND d.status = 'delivered'
         ORDER BY d.updated_at DESC LIMIT $2
       ) last
     ) recent
     WHERE s.site_hash = $1 AND s.status = 'subscribed' AND recent.delivered = $2 AND recent.shown = 0`,
    [siteHash, deliveries],
  );
  const { dates, start, end } = await zoneDays(db, zone, days, now);
  const perDay = await db.query<{ day: string; count: string }>(
    `SELECT to_char(created_at AT TIME ZONE $4::text, 'YYYY-MM-DD') AS day, count(*) AS count FROM events
     WHERE site_hash = $1 AND kind = 'expired' AND created_at >= $2 AND created_at < $3 GROUP BY 1`,
    [siteHash, start, end, zone],
  );
  const byDay = new Map(perDay.rows.map((row) => [row.day, Number(row.count)]));
  const expired = dates.map((date) => ({ date, count: byDay.get(date) ?? 0 }));
  const total = await db.query<{ count: string }>(`SELECT count(*) AS count FROM subscribers WHERE site_hash = $1 AND status = 'expired'`, [
    siteHash,
  ]);
  return { atRisk: Number(atRisk.rows[0]!.count), deliveries, expired, expiredTotal: Number(total.rows[0]!.count) };
}
