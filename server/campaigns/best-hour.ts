// A campaign's timing beyond its send time: its send rate (throttle.ts claims by it) and best-hour delivery.
// deliverAt "best-hour" gives each subscriber the message at the hour of day they clicked most in the past 90
// days on their own clock (their stored time zone, else UTC offset, else UTC: local-time.ts), else at the site's
// best hour (the hour of most clicks across the site, each on its clicker's clock), within 24 h of the campaign's
// start; a held-out share, chosen at random, goes at once. The campaign's figures compare the two groups' click
// rates (bestHourFigures), so the owner sees whether it helps.
import type { Queryable } from '../db/database.ts';
import type { CampaignInput } from '../../contract/campaign-input.ts';
import type { CampaignBestHourFigures, CampaignGroupFigures } from '../../contract/owner-api.ts';
import { BEST_HOUR_LOOKBACK_DAYS, DEFAULT_BEST_HOUR_HOLDOUT } from '../../contract/campaign-limits.ts';
import { breakdownOf } from './delivery-breakdown.ts';
import { nextLocalTime, zoneOffsetMinutes, type SubscriberZone } from './local-time.ts';

const HOUR_MS = 3_600_000;
const QUARTER_MINUTES = 15;

/** Stores the campaign's rate and delivery option; a best-hour campaign's deliveries get their due times. */
export async function setCampaignTiming(
  tx: Queryable,
  siteHash: string,
  campaignId: string,
  input: Pick<CampaignInput, 'throttlePerMinute' | 'deliverAt' | 'bestHourHoldout' | 'sendAt'>,
  recipients: number,
  now: number,
): Promise<void> {
  if (input.throttlePerMinute === undefined && input.deliverAt === undefined) return;
  const holdout = input.deliverAt === 'best-hour' ? (input.bestHourHoldout ?? DEFAULT_BEST_HOUR_HOLDOUT) : null;
  await tx.query('UPDATE campaigns SET throttle_per_minute = $2, deliver_at = $3, best_hour_holdout = $4 WHERE id = $1', [
    campaignId,
    input.throttlePerMinute ?? null,
    input.deliverAt ?? null,
    holdout,
  ]);
  if (holdout !== null && recipients > 0) {
    await scheduleBestHour(tx, siteHash, campaignId, holdout, recipients, input.sendAt === undefined ? now : Date.parse(input.sendAt));
  }
}

const zoneKey = (zone: SubscriberZone) => `${zone.timezone ?? ''}|${zone.timezoneOffset ?? ''}`;

/** The local hour (0-23) of a click in `quarter` (its UTC quarter-hour of the day) for a zone, at `at`. */
function localHour(zone: SubscriberZone, quarter: number, at: number): number {
  const minutes = (((quarter * QUARTER_MINUTES + zoneOffsetMinutes(zone, at)) % 1440) + 1440) % 1440;
  return Math.floor(minutes / 60);
}

/** The hour with most clicks (the earliest on a tie), or undefined without any click. */
function bestOf(hours: number[]): number | undefined {
  let best: number | undefined;
  hours.forEach((clicks, hour) => {
    if (clicks > 0 && (best === undefined || clicks > hours[best]!)) best = hour;
  });
  return best;
}

/**
 * The first instant at or after `from` within the zone's `hour` (a subscriber whose best hour has begun gets it at
 * once): within 24 h of `from`.
 */
export function bestHourDue(zone: SubscriberZone, hour: number, from: number): number {
  const start = nextLocalTime(zone, `${String(hour).padStart(2, '0')}:00`, from - HOUR_MS + 1);
  return Math.max(from, start);
}

interface ClickRow {
  subscriber_id?: string;
  timezone: string | null;
  timezone_offset: number | null;
  quarter: number;
  clicks: string;
}

// a click's UTC quarter-hour of the day from its epoch: no time zone data of the database is relied on
const QUARTER_SQL = `(floor(mod(extract(epoch FROM e.created_at)::bigint, 86400) / ${QUARTER_MINUTES * 60}))::int`;

async function scheduleBestHour(
  tx: Queryable,
  siteHash: string,
  campaignId: string,
  holdoutShare: number,
  recipients: number,
  from: number,
): Promise<void> {
  const since = new Date(from - BEST_HOUR_LOOKBACK_DAYS * 24 * HOUR_MS).toISOString();
  // the held-out share, at random: it goes at once (its deliveries keep the campaign's start)
  const held = Math.round(recipients * holdoutShare);
  await tx.query(
    `WITH ranked AS (SELECT id, row_number() OVER (ORDER BY random()) AS n FROM deliveries WHERE campaign_id = $1)
     UPDATE deliveries d SET holdout = (r.n <= $2) FROM ranked r WHERE d.id = r.id`,
    [campaignId, held],
  );
  // the site's best hour: every click of the past 90 days, each on its clicker's clock (a row per zone and quarter)
  const { rows: siteClicks } = await tx.query<ClickRow>(
    `SELECT s.timezone, s.timezone_offset, ${QUARTER_SQL} AS quarter, count(*) AS clicks
     FROM events e JOIN subscribers s ON s.id = e.subscriber_id
     WHERE e.site_hash = $1 AND e.kind = 'clicked' AND e.created_at >= $2 GROUP BY 1, 2, 3`,
    [siteHash, since],
  );
  const siteHours = new Array<number>(24).fill(0);
  for (const row of siteClicks) {
    siteHours[localHour({ timezone: row.timezone, timezoneOffset: row.timezone_offset }, row.quarter, from)]! += Number(row.clicks);
  }
  const siteHour = bestOf(siteHours);
  // each subscriber of the best-hour group with clicks of their own: their hour
  const { rows: ownClicks } = await tx.query<ClickRow & { subscriber_id: string }>(
    `SELECT e.subscriber_id, s.timezone, s.timezone_offset, ${QUARTER_SQL} AS quarter, count(*) AS clicks
     FROM deliveries d JOIN events e ON e.subscriber_id = d.subscriber_id JOIN subscribers s ON s.id = d.subscriber_id
     WHERE d.campaign_id = $1 AND NOT d.holdout AND e.site_hash = $2 AND e.kind = 'clicked' AND e.created_at >= $3
     GROUP BY 1, 2, 3, 4`,
    [campaignId, siteHash, since],
  );
  const own = new Map<string, { zone: SubscriberZone; hours: number[] }>();
  for (const row of ownClicks) {
    const zone = { timezone: row.timezone, timezoneOffset: row.timezone_offset };
    let entry = own.get(row.subscriber_id);
    if (!entry) own.set(row.subscriber_id, (entry = { zone, hours: new Array<number>(24).fill(0) }));
    entry.hours[localHour(zone, row.quarter, from)]! += Number(row.clicks);
  }
  // the rest of the group at the site's best hour, one due time per zone (none known: at once, with the held-out)
  if (siteHour !== undefined) {
    const { rows: zones } = await tx.query<{ timezone: string | null; timezone_offset: number | null }>(
      `SELECT DISTINCT s.timezone, s.timezone_offset FROM deliveries d JOIN subscribers s ON s.id = d.subscriber_id
       WHERE d.campaign_id = $1 AND NOT d.holdout`,
      [campaignId],
    );
    const dues = new Map(
      zones.map((row) => {
        const zone = { timezone: row.timezone, timezoneOffset: row.timezone_offset };
        return [zoneKey(zone), { zone, due: new Date(bestHourDue(zone, siteHour, from)).toISOString() }];
      }),
    );
    await tx.query(
      `UPDATE deliveries d SET next_attempt_at = z.due
       FROM subscribers s, unnest($2::text[], $3::int[], $4::timestamptz[]) AS z (timezone, timezone_offset, due)
       WHERE d.campaign_id = $1 AND NOT d.holdout AND s.id = d.subscriber_id
         AND s.timezone IS NOT DISTINCT FROM z.timezone AND s.timezone_offset IS NOT DISTINCT FROM z.timezone_offset`,
      [
        campaignId,
        [...dues.values()].map((entry) => entry.zone.timezone),
        [...dues.values()].map((entry) => entry.zone.timezoneOffset),
        [...dues.values()].map((entry) => entry.due),
      ],
    );
  }
  if (own.size > 0) {
    const subscribers = [...own.keys()];
    await tx.query(
      `UPDATE deliveries d SET next_attempt_at = o.due FROM unnest($2::text[], $3::timestamptz[]) AS o (subscriber_id, due)
       WHERE d.campaign_id = $1 AND d.subscriber_id = o.subscriber_id`,
      [
        campaignId,
        subscribers,
        subscribers.map((id) => {
          const { zone, hours } = own.get(id)!;
          return new Date(bestHourDue(zone, bestOf(hours)!, from)).toISOString();
        }),
      ],
    );
  }
}

/** A best-hour campaign's two groups: clicked once per subscriber, click rate of those delivered. */
export async function bestHourFigures(db: Queryable, campaignId: string, holdoutShare: number): Promise<CampaignBestHourFigures> {
  // folded (delivery-breakdown.ts): kept after subscribers are deleted and delivery rows pruned
  const rows = await breakdownOf(db, campaignId, ['holdout']);
  const group = (holdout: boolean): CampaignGroupFigures => {
    const row = rows.find((candidate) => candidate.holdout === holdout);
    const delivered = row?.delivered ?? 0;
    const clicked = row?.clicked ?? 0;
    return { recipients: row?.recipients ?? 0, delivered, clicked, clickRate: delivered > 0 ? clicked / delivered : null };
  };
  return { holdoutShare, bestHour: group(false), holdout: group(true) };
}
