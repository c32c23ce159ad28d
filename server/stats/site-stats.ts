// Figures of the owner dashboard's overview, computed in the database with aggregates over indexed ranges:
// nothing here reads subscriber rows into the process, so a site of 100,000 subscribers costs a few counts.
import type { Queryable } from '../db/database.ts';
import { countSubscribers } from '../subscribers/index.ts';
import { notificationDays } from './notification-days.ts';
import { zoneDays } from '../db/zone-days.ts';
import type { DayCount, NotificationDay, SiteStats, ValueCount } from '../../contract/owner-api.ts';

async function topValues(db: Queryable, siteHash: string, column: 'browser_type' | 'language', top: number): Promise<ValueCount[]> {
  const { rows } = await db.query<{ value: string; count: string }>(
    `SELECT coalesce(nullif(${column}, ''), 'unknown') AS value, count(*) AS count FROM subscribers
      WHERE site_hash = $1 AND status = 'subscribed' GROUP BY 1 ORDER BY count(*) DESC, 1`,
    [siteHash],
  );
  const counts = rows.map((row) => ({ value: row.value, count: Number(row.count) }));
  if (counts.length <= top) return counts;
  const other = counts.slice(top).reduce((sum, entry) => sum + entry.count, 0);
  return [...counts.slice(0, top), { value: 'other', count: other }];
}

/**
 * The overview of one site: counts by status, subscribers and notifications per day over the last `days` days of
 * `zone` (an IANA name: the owner's display zone, so a day on the chart is the owner's day), browsers and languages.
 */
export async function siteStats(
  db: Queryable,
  siteHash: string,
  days: number,
  conversionWindowHours: number,
  zone = 'UTC',
  now = Date.now(),
  top = 8,
): Promise<SiteStats> {
  // the window's ends: midnight of its first day and of the day after today, on the zone's clock
  const { dates, start, end } = await zoneDays(db, zone, days, now);
  const before = await db.query<{ count: string }>('SELECT count(*) AS count FROM subscribers WHERE site_hash = $1 AND created_at < $2', [
    siteHash,
    start,
  ]);
  const perDay = await db.query<{ day: string; count: string }>(
    `SELECT to_char(created_at AT TIME ZONE $4::text, 'YYYY-MM-DD') AS day, count(*) AS count FROM subscribers
      WHERE site_hash = $1 AND created_at >= $2 AND created_at < $3 GROUP BY 1`,
    [siteHash, start, end, zone],
  );
  const newByDay = new Map(perDay.rows.map((row) => [row.day, Number(row.count)]));
  const sent = await notificationDays(db, siteHash, start, end, conversionWindowHours, zone);
  let running = Number(before.rows[0]!.count);
  const series: DayCount[] = [];
  const notifications: NotificationDay[] = [];
  for (const date of dates) {
    const added = newByDay.get(date) ?? 0;
    running += added;
    series.push({ date, new: added, total: running });
    notifications.push({ date, ...(sent.get(date) ?? { delivered: 0, shown: 0, clicked: 0, conversions: 0 }) });
  }
  const counts = await countSubscribers(db, siteHash);
  const blocks = await db.query<{ count: string }>(
    `SELECT count(*) AS count FROM events WHERE site_hash = $1 AND kind = 'block' AND created_at >= $2`,
    [siteHash, start],
  );
  return {
    total: counts.count,
    byStatus: counts.byStatus,
    days: series,
    browsers: await topValues(db, siteHash, 'browser_type', top),
    languages: await topValues(db, siteHash, 'language', top),
    blocks: Number(blocks.rows[0]!.count),
    notifications,
  };
}
