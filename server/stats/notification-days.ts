// A site's notifications per day of a time zone (campaigns and automated messages together): delivered (the push service
// took the message, by the day its answer came), shown, clicked (subscribers reporting, by the report's day)
// and conversions (shop orders placed within the site's conversion window after one of the subscriber's
// clicks, by the order's day). Each is one grouped query over an indexed range of the window. The prunes delete
// delivery rows (after the reporting window, 30 days), reports and clicks (after the event retention, 180 days):
// each keeps what it deleted per site and quarter hour (migration 44), added here, so an older day keeps its figures.
import type { Queryable } from '../db/database.ts';
import type { NotificationDay } from '../../contract/owner-api.ts';

/** A row's day on the clock of the time zone in the query's parameter `zoneParam`. */
const dayOf = (column: string, zoneParam: number) => `to_char(${column} AT TIME ZONE $${zoneParam}::text, 'YYYY-MM-DD')`;

/** The figures of each day from `start` (inclusive) to `end` (exclusive), by date; days without any are absent. */
export async function notificationDays(
  db: Queryable,
  siteHash: string,
  start: string,
  end: string,
  conversionWindowHours: number,
  zone = 'UTC',
): Promise<Map<string, Omit<NotificationDay, 'date'>>> {
  const days = new Map<string, Omit<NotificationDay, 'date'>>();
  const day = (date: string) => {
    let entry = days.get(date);
    if (!entry) days.set(date, (entry = { delivered: 0, shown: 0, clicked: 0, conversions: 0 }));
    return entry;
  };
  // A delivery's result is written within its campaign's TTL (at most 28 days) of the campaign's creation.
  const delivered = await db.query<{ day: string; count: string }>(
    `SELECT ${dayOf('d.updated_at', 4)} AS day, count(*) AS count
       FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id
      WHERE c.site_hash = $1 AND c.created_at >= $2::timestamptz - interval '28 days' AND c.created_at < $3
        AND d.status = 'delivered' AND d.updated_at >= $2 AND d.updated_at < $3
      GROUP BY 1`,
    [siteHash, start, end, zone],
  );
  for (const row of delivered.rows) day(row.day).delivered = Number(row.count);
  const reports = await db.query<{ day: string; kind: 'shown' | 'clicked'; count: string }>(
    `SELECT ${dayOf('created_at', 4)} AS day, kind, count(*) AS count FROM events
      WHERE site_hash = $1 AND kind IN ('shown', 'clicked') AND campaign_id IS NOT NULL AND created_at >= $2 AND created_at < $3
      GROUP BY 1, 2`,
    [siteHash, start, end, zone],
  );
  for (const row of reports.rows) day(row.day)[row.kind] = Number(row.count);
  const conversions = await db.query<{ day: string; count: string }>(
    `SELECT ${dayOf('o.created_at', 5)} AS day, count(*) AS count FROM shop_orders o
      WHERE o.site_hash = $1 AND o.created_at >= $2 AND o.created_at < $3 AND o.subscriber_id IS NOT NULL
        AND EXISTS (SELECT 1 FROM events e WHERE e.subscriber_id = o.subscriber_id AND e.kind = 'clicked' AND e.campaign_id IS NOT NULL
                      AND e.created_at <= o.created_at AND e.created_at > o.created_at - make_interval(hours => $4))
      GROUP BY 1`,
    [siteHash, start, end, conversionWindowHours, zone],
  );
  for (const row of conversions.rows) day(row.day).conversions = Number(row.count);
  // what the prunes deleted, kept per quarter hour (migration 44): a day's figures stay as they were
  const kept = await db.query<{ day: string; delivered: string; shown: string; clicked: string; conversions: string }>(
    `SELECT ${dayOf('quarter', 4)} AS day, sum(delivered) AS delivered, sum(shown) AS shown, sum(clicked) AS clicked,
            sum(conversions) AS conversions
       FROM notification_days_kept WHERE site_hash = $1 AND quarter >= $2 AND quarter < $3 GROUP BY 1`,
    [siteHash, start, end, zone],
  );
  for (const row of kept.rows) {
    const entry = day(row.day);
    entry.delivered += Number(row.delivered);
    entry.shown += Number(row.shown);
    entry.clicked += Number(row.clicked);
    entry.conversions += Number(row.conversions);
  }
  return days;
}
