// A campaign's page: its figures over time (deliveries that went, first reports of shown and clicked per
// subscriber, by hour or by day), by browser and by A/B variant (the test share), each with what was sent,
// delivered, shown and clicked so the three rates (contract/campaign-report.ts) can be read from them. All are
// read from the folded breakdown (delivery-breakdown.ts): they stay after subscribers are deleted and after the
// campaign's delivery rows are pruned.
import type { Queryable } from '../db/database.ts';
import type { CampaignBreakdownRow, CampaignFigures, CampaignTimePoint } from '../../contract/campaign-report.ts';
import { breakdownOf, hourlyOf, type BreakdownFigures } from './delivery-breakdown.ts';

/** The most steps a timeline carries (a campaign spread over months is shown by day up to this). */
const MAX_STEPS = 400;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export async function campaignFigures(db: Queryable, campaignId: string): Promise<CampaignFigures> {
  const [timeline, byBrowser, byVariant] = await Promise.all([
    timelineOf(db, campaignId),
    breakdownOf(db, campaignId, ['browser']),
    breakdownOf(db, campaignId, ['variant']),
  ]);
  return {
    ...timeline,
    byBrowser: [
      ...byBrowser
        .reduce((merged, row) => {
          // no browser stored (or an empty one) reads "unknown"
          const key = row.browser || 'unknown';
          const into = merged.get(key);
          merged.set(key, into ? add(into, row) : { key, ...figuresOf(row) });
          return merged;
        }, new Map<string, CampaignBreakdownRow>())
        .values(),
    ].sort((a, b) => b.recipients - a.recipients || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    byVariant: byVariant
      .filter((row) => row.variant !== null)
      .map((row) => ({ key: String(row.variant), ...figuresOf(row) }))
      .sort((a, b) => Number(a.key) - Number(b.key)),
  };
}

const figuresOf = ({ recipients, sent, delivered, shown, clicked }: BreakdownFigures) => ({ recipients, sent, delivered, shown, clicked });
const add = (into: CampaignBreakdownRow, row: BreakdownFigures): CampaignBreakdownRow => ({
  key: into.key,
  recipients: into.recipients + row.recipients,
  sent: into.sent + row.sent,
  delivered: into.delivered + row.delivered,
  shown: into.shown + row.shown,
  clicked: into.clicked + row.clicked,
});

/** Deliveries, first shown and first clicked reports by hour (folded), or by day over more than two days. */
async function timelineOf(db: Queryable, campaignId: string): Promise<Pick<CampaignFigures, 'step' | 'timeline'>> {
  const rows = await hourlyOf(db, campaignId);
  if (rows.length === 0) return { step: 'hour', timeline: [] };
  const times = rows.map((row) => row.hour.getTime());
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
    point[row.kind] += row.count;
  });
  return { step, timeline: points };
}
