// A campaign's page: its figures over time (deliveries that went, first reports of shown and clicked per
// subscriber, by hour or by day), by browser and by A/B variant (the test share), each with what was sent,
// delivered, shown and clicked so the three rates (contract/campaign-report.ts) can be read from them.
import type { Queryable } from '../db/database.ts';
import type { CampaignBreakdownRow, CampaignFigures, CampaignTimePoint } from '../../contract/campaign-report.ts';

/** The most steps a timeline carries (a campaign spread over months is shown by day up to this). */
const MAX_STEPS = 400;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export async function campaignFigures(db: Queryable, campaignId: string): Promise<CampaignFigures> {
  const [timeline, byBrowser, byVariant] = await Promise.all([
    timelineOf(db, campaignId),
    breakdown(db, campaignId, `coalesce(nullif(s.browser_type, ''), 'unknown')`, 'TRUE'),
    breakdown(db, campaignId, 'd.variant::text', 'd.variant IS NOT NULL'),
  ]);
  return { ...timeline, byBrowser, byVariant: byVariant.sort((a, b) => Number(a.key) - Number(b.key)) };
}

async function timelineOf(db: Queryable, campaignId: string): Promise<Pick<CampaignFigures, 'step' | 'timeline'>> {
  const { rows } = await db.query<{ at: Date; kind: 'delivered' | 'shown' | 'clicked' }>(
    `SELECT d.updated_at AS at, 'delivered' AS kind FROM deliveries d WHERE d.campaign_id = $1 AND d.status = 'delivered'
     UNION ALL
     SELECT min(e.created_at), e.kind FROM events e WHERE e.campaign_id = $1 AND e.kind IN ('shown', 'clicked')
       GROUP BY coalesce(e.subscriber_id, e.id::text), e.kind`,
    [campaignId],
  );
  if (rows.length === 0) return { step: 'hour', timeline: [] };
  const times = rows.map((row) => new Date(row.at).getTime());
  const first = Math.min(...times);
  const last = Math.max(...times);
  const step = last - first <= 2 * DAY_MS ? 'hour' : 'day';
  const size = step === 'hour' ? HOUR_MS : DAY_MS;
  const start = Math.floor(first / size) * size;
  const count = Math.min(MAX_STEPS, Math.floor((last - start) / size) + 1);
  const points: CampaignTimePoint[] = Array.from({ length: count }, (_, index) => ({
    at: new Date(start + index * size).toISOString(),
    delivered: 0,
    shown: 0,
    clicked: 0,
  }));
  rows.forEach((row, index) => {
    const point = points[Math.min(count - 1, Math.floor((times[index]! - start) / size))]!;
    point[row.kind] += 1;
  });
  return { step, timeline: points };
}

/** The campaign's deliveries grouped by `key` (SQL over deliveries d and subscribers s), those matching `where`. */
async function breakdown(db: Queryable, campaignId: string, key: string, where: string): Promise<CampaignBreakdownRow[]> {
  const { rows } = await db.query<Record<keyof CampaignBreakdownRow, string>>(
    `SELECT ${key} AS key, count(*) AS recipients,
       count(*) FILTER (WHERE d.status IN ('delivered', 'failed', 'expired')) AS sent,
       count(*) FILTER (WHERE d.status = 'delivered') AS delivered,
       count(r.shown) AS shown, count(r.clicked) AS clicked
     FROM deliveries d LEFT JOIN subscribers s ON s.id = d.subscriber_id
     LEFT JOIN (SELECT e.subscriber_id, bool_or(e.kind = 'shown') OR NULL AS shown, bool_or(e.kind = 'clicked') OR NULL AS clicked
                FROM events e WHERE e.campaign_id = $1 AND e.kind IN ('shown', 'clicked') AND e.subscriber_id IS NOT NULL
                GROUP BY e.subscriber_id) r ON r.subscriber_id = d.subscriber_id
     WHERE d.campaign_id = $1 AND ${where}
     GROUP BY 1 ORDER BY count(*) DESC, 1`,
    [campaignId],
  );
  return rows.map((row) => ({
    key: String(row.key),
    recipients: Number(row.recipients),
    sent: Number(row.sent),
    delivered: Number(row.delivered),
    shown: Number(row.shown),
    clicked: Number(row.clicked),
  }));
}
