// The last N days of a time zone's calendar (the owner's display zone, dashboard/src/clock/): the overview's charts
// and the subscription health's expiries count each day midnight to midnight on that clock, so an owner at UTC+10
// sees this morning under today.
import type { Queryable } from './database.ts';

const DAY_MS = 86_400_000;

/** The date (YYYY-MM-DD) on the zone's clock at that instant. */
function dateIn(zone: string, time: number): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(time);
  const part = (type: string) => parts.find((entry) => entry.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The date `count` days after a date (calendar arithmetic: no zone, no daylight saving). */
const addDays = (date: string, count: number) => new Date(Date.parse(`${date}T00:00:00Z`) + count * DAY_MS).toISOString().slice(0, 10);

export interface ZoneDays {
  /** The days, oldest first, the last one today on the zone's clock (YYYY-MM-DD). */
  dates: string[];
  /** Midnight of the first day and of the day after today on the zone's clock, as ISO instants. */
  start: string;
  end: string;
}

/**
 * The `days` days up to today on `zone`'s clock (an IANA name) and their ends (the database turns a zone's midnight
 * into an instant, daylight saving included). Count a timestamp column's day in SQL with
 * `to_char(column AT TIME ZONE zone, 'YYYY-MM-DD')` between `start` and `end`.
 */
export async function zoneDays(db: Queryable, zone: string, days: number, now = Date.now()): Promise<ZoneDays> {
  const today = dateIn(zone, now);
  const first = addDays(today, -(days - 1));
  const bounds = await db.query<{ since: Date; until: Date }>(
    `SELECT $1::date::timestamp AT TIME ZONE $3::text AS since, $2::date::timestamp AT TIME ZONE $3::text AS until`,
    [first, addDays(today, 1), zone],
  );
  const dates = Array.from({ length: days }, (_, index) => addDays(first, index));
  return { dates, start: new Date(bounds.rows[0]!.since).toISOString(), end: new Date(bounds.rows[0]!.until).toISOString() };
}
