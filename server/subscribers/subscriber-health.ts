// Subscription health of a site, for the owner (GET sites/:name/subscriber-health and the dashboard's overview):
// subscribers at risk, whose browser delivered none of their last few messages to the screen (no `shown`
// report from the service worker: a browser dropping pushes, a worker gone, a site Safari revoked), and the
// subscribers push services reported gone (404/410), day by day.
import type { Queryable } from '../db/database.ts';
import type { SubscriberHealth } from '../../contract/automations.ts';

export const AT_RISK_DELIVERIES_DEFAULT = 3;
export const AT_RISK_DELIVERIES_MAX = 20;
const DAY_MS = 86_400_000;

export async function subscriberHealth(
  db: Queryable,
  siteHash: string,
  days: number,
  deliveries: number,
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
  const today = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate());
  const start = today - (days - 1) * DAY_MS;
  const perDay = await db.query<{ day: string; count: string }>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS count FROM events
     WHERE site_hash = $1 AND kind = 'expired' AND created_at >= $2 AND created_at < $3 GROUP BY 1`,
    [siteHash, new Date(start).toISOString(), new Date(today + DAY_MS).toISOString()],
  );
  const byDay = new Map(perDay.rows.map((row) => [row.day, Number(row.count)]));
  const expired: SubscriberHealth['expired'] = [];
  for (let time = start; time <= today; time += DAY_MS) {
    const date = new Date(time).toISOString().slice(0, 10);
    expired.push({ date, count: byDay.get(date) ?? 0 });
  }
  const total = await db.query<{ count: string }>(`SELECT count(*) AS count FROM subscribers WHERE site_hash = $1 AND status = 'expired'`, [
    siteHash,
  ]);
  return { atRisk: Number(atRisk.rows[0]!.count), deliveries, expired, expiredTotal: Number(total.rows[0]!.count) };
}
