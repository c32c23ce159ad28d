// Campaigns: one notification to all subscribed visitors of a site, to a segment, or to one subscriber.
// Creating a campaign writes one pending delivery per recipient; the sender (campaign-sender.ts) claims pending
// deliveries with FOR UPDATE SKIP LOCKED, so several processes share the work and a restart resumes it.
import type { Database, Queryable } from '../db/database.ts';
import { isoTime, isoTimeOrNull } from '../db/iso-time.ts';
import type { HostedSite } from '../sites.ts';
import type { CampaignAction, CampaignInput } from '../../contract/campaign-input.ts';
import type { AbWinnerNote, Campaign, CampaignStatus, CreatedCampaign } from '../../contract/owner-api.ts';
import type { Urgency } from '../../contract/urgency.ts';
import { audienceQuery } from './audience.ts';
import { nextLocalTime } from './local-time.ts';
import { CAMPAIGN_CONVERSIONS_KEPT, CAMPAIGN_REVENUE, variantRevenue } from './campaign-revenue.ts';
import type { CurrencyAmount } from '../../contract/shop-order.ts';
import { splitForTest, variantFigures } from './ab-tests.ts';
import { campaignFailures } from './delivery-failures.ts';
import { deliveryCountsSql } from './delivery-counts.ts';
import { breakdownOf, reportCountsSql } from './delivery-breakdown.ts';
import { creationChunk, firstChunkSql, writeRemainingChunks, type RemainingChunks } from './chunked-creation.ts';
import { NO_CAMPAIGN_FILTER, type CampaignFilter } from './campaign-search.ts';
import { bestHourFigures, setCampaignTiming } from './best-hour.ts';
import { throttledFinish } from './throttle.ts';
import type { DeliverAt } from '../../contract/campaign-limits.ts';
import { bestLanguage, DEFAULT_LANGUAGE, type LanguageTexts } from '../../contract/languages.ts';
import type { CampaignLanguageFigures, CampaignVariantFigures } from '../../contract/owner-api.ts';

/** Creates the campaign and its deliveries; `now` (ms) is when a localTime campaign starts looking for its time. */
export async function createCampaign(
  db: Database,
  site: Pick<HostedSite, 'hash'>,
  input: CampaignInput,
  now: number = Date.now(),
): Promise<CreatedCampaign> {
  const scheduled = input.sendAt !== undefined || input.localTime !== undefined;
  // a large audience: this transaction writes the first chunk of rows, the rest follow (chunked-creation.ts)
  let rest: RemainingChunks | undefined;
  const created = await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO campaigns (site_hash, title, body, url, icon, segment_sid, subscriber_id, ttl, urgency, image, actions, app_badge,
         send_at, local_time, status, topic, texts)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING id`,
      [
        site.hash,
        input.title,
        input.body,
        input.url ?? null,
        input.icon ?? null,
        input.segment ?? null,
        input.subscriberId ?? null,
        input.ttl,
        input.urgency,
        input.image ?? null,
        input.actions?.length ? JSON.stringify(input.actions) : null,
        input.appBadge ?? null,
        input.sendAt ?? null,
        input.localTime ?? null,
        scheduled ? 'scheduled' : 'pending',
        input.topic ?? null,
        input.texts && Object.keys(input.texts).length ? JSON.stringify(input.texts) : null,
      ],
    );
    const campaignId = String(rows[0]!.id);
    const audience = await audienceQuery(tx, site.hash, input, 2);
    if (input.audience) await tx.query('UPDATE campaigns SET audience_id = $2 WHERE id = $1', [campaignId, input.audience]);
    // counted in the database: a campaign to everyone must not carry a row per recipient back to the process. A plain
    // INSERT: the campaign is this transaction's own and the audience names each subscriber once (by primary key), so
    // no row can conflict, and ON CONFLICT's speculative insertion cost a unique-index probe and a WAL record per row.
    const inserted = await tx.query<{ recipients: number }>(
      `WITH inserted AS (
         INSERT INTO deliveries (campaign_id, subscriber_id, next_attempt_at)
         SELECT $1, audience.id, $${audience.params.length + 2}::timestamptz FROM (${audience.sql}${firstChunkSql(input)}) audience
         RETURNING 1
       )
       SELECT count(*)::int AS recipients FROM inserted`,
      // due by the sender's clock (the one `now` comes from), not the database server's
      [campaignId, ...audience.params, new Date(now).toISOString()],
    );
    const recipients = inserted.rows[0]!.recipients;
    if (firstChunkSql(input) && recipients === creationChunk()) {
      await tx.query('UPDATE campaigns SET creating = true WHERE id = $1', [campaignId]);
      rest = { campaignId, audience, due: new Date(input.sendAt === undefined ? now : Date.parse(input.sendAt)).toISOString() };
    }
    if (recipients > 0 && scheduled) await scheduleDeliveries(tx, campaignId, input, now);
    await setCampaignTiming(tx, site.hash, campaignId, input, recipients, now);
    if (recipients > 0 && input.variants) {
      await splitForTest(tx, campaignId, input, recipients, input.sendAt === undefined ? now : Date.parse(input.sendAt));
    }
    if (recipients === 0) {
      await tx.query(`UPDATE campaigns SET status = 'done', completed_at = now() WHERE id = $1`, [campaignId]);
    }
    return { campaignId, recipients };
  });
  return rest ? { ...created, recipients: created.recipients + (await writeRemainingChunks(db, rest)) } : created;
}

/** Sets each delivery's due time: the send time, or when its subscriber's clock first shows the local time. */
async function scheduleDeliveries(tx: Queryable, campaignId: string, input: CampaignInput, now: number): Promise<void> {
  const from = input.sendAt === undefined ? now : Date.parse(input.sendAt);
  if (input.localTime === undefined) {
    await tx.query('UPDATE deliveries SET next_attempt_at = $2 WHERE campaign_id = $1', [campaignId, new Date(from).toISOString()]);
    return;
  }
  // One due time per zone (a handful), computed here: the database's own time zone data is not relied on.
  const { rows: zones } = await tx.query<{ timezone: string | null; timezone_offset: number | null }>(
    `SELECT DISTINCT s.timezone, s.timezone_offset FROM deliveries d JOIN subscribers s ON s.id = d.subscriber_id WHERE d.campaign_id = $1`,
    [campaignId],
  );
  const localTime = input.localTime;
  const due = zones.map((zone) =>
    new Date(nextLocalTime({ timezone: zone.timezone, timezoneOffset: zone.timezone_offset }, localTime, from)).toISOString(),
  );
  await tx.query(
    `UPDATE deliveries d SET next_attempt_at = z.due
     FROM subscribers s, unnest($2::text[], $3::int[], $4::timestamptz[]) AS z (timezone, timezone_offset, due)
     WHERE d.campaign_id = $1 AND s.id = d.subscriber_id
       AND s.timezone IS NOT DISTINCT FROM z.timezone AND s.timezone_offset IS NOT DISTINCT FROM z.timezone_offset`,
    [campaignId, zones.map((zone) => zone.timezone), zones.map((zone) => zone.timezone_offset), due],
  );
}

/**
 * Cancels what of a scheduled or sending campaign has not gone: its waiting deliveries are removed (one a
 * sender holds right now still goes). Returns how many were removed, or null when the campaign is not on the
 * site or has nothing left to cancel.
 */
export async function cancelCampaign(db: Database, siteHash: string, campaignId: string): Promise<number | null> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ status: CampaignStatus }>(
      'SELECT status FROM campaigns WHERE site_hash = $1 AND id = $2 FOR UPDATE',
      [siteHash, campaignId],
    );
    const status = rows[0]?.status;
    if (status !== 'scheduled' && status !== 'sending' && status !== 'pending' && status !== 'waiting_for_key') return null;
    const removed = await tx.query(
      `WITH removed AS (DELETE FROM deliveries WHERE campaign_id = $1 AND status = 'pending' AND claimed_at IS NULL RETURNING 1)
       SELECT count(*)::int AS count FROM removed`,
      [campaignId],
    );
    await tx.query(`UPDATE campaigns SET status = 'cancelled', completed_at = now() WHERE id = $1`, [campaignId]);
    return Number(removed.rows[0]!.count);
  });
}

interface CampaignRow {
  id: string;
  title: string;
  body: string;
  url: string | null;
  icon: string | null;
  image: string | null;
  actions: CampaignAction[] | null;
  texts: LanguageTexts | null;
  app_badge: number | null;
  segment_sid: string | null;
  audience_id: string | null;
  subscriber_id: string | null;
  ttl: number;
  urgency: Urgency;
  status: CampaignStatus;
  send_at: Date | null;
  local_time: string | null;
  next_due_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
  recipients: string;
  pending: string;
  delivered: string;
  failed: string;
  expired: string;
  capped: string;
  dropped: string;
  topic: string | null;
  winner_at: Date | null;
  winner_variant: number | null;
  winner_after_minutes: number | null;
  test_delivered_at: Date | null;
  winner_note: AbWinnerNote | null;
  resend_of: string | null;
  pruned_after_days: number | null;
  shown: string;
  clicked: string;
  closed: string;
  reports_with_token: string;
  reports_with_endpoint: string;
  conversions: string;
  revenue: CurrencyAmount[] | null;
  throttle_per_minute: number | null;
  throttle_next_at: Date | null;
  deliver_at: DeliverAt | null;
  best_hour_holdout: number | null;
  last_due_at: Date | null;
}

const CAMPAIGN_SELECT = `
  SELECT c.*, n.*, r.*,
    (SELECT min(d.next_attempt_at) FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'pending') AS next_due_at,
    (SELECT max(d.next_attempt_at) FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'pending') AS last_due_at,
    (SELECT count(*) FROM events e WHERE e.campaign_id = c.id AND e.kind IN ('shown', 'clicked', 'closed') AND e.detail->>'proof' = 'token') AS reports_with_token,
    (SELECT count(*) FROM events e WHERE e.campaign_id = c.id AND e.kind IN ('shown', 'clicked', 'closed') AND e.detail->>'proof' = 'endpoint') AS reports_with_endpoint,
    (SELECT count(DISTINCT o.order_id) FROM shop_orders o
       JOIN (SELECT e.subscriber_id, min(e.created_at) AS clicked_at FROM events e
             WHERE e.campaign_id = c.id AND e.kind = 'clicked' AND e.subscriber_id IS NOT NULL GROUP BY e.subscriber_id) k
         ON o.subscriber_id = k.subscriber_id
       WHERE o.site_hash = c.site_hash AND o.created_at >= k.clicked_at AND o.created_at < k.clicked_at + make_interval(hours => $2)
    ) + ${CAMPAIGN_CONVERSIONS_KEPT} AS conversions,
    ${CAMPAIGN_REVENUE} AS revenue
  -- the figures by status: kept when delivery rows go (an erased subscriber, the reporting window)
  -- and subscribers' first reports (shown, clicked, closed): kept when a subscriber and their events go
  FROM campaigns c CROSS JOIN LATERAL ${deliveryCountsSql('c.id')} n CROSS JOIN LATERAL ${reportCountsSql('c.id')} r`;

/** Hours after a click in which the subscriber's shop order is the campaign's conversion, unless the site says. */
export const DEFAULT_CONVERSION_WINDOW_HOURS = 72;

/** A site's conversion window in hours: its config's, else the default. */
export function conversionWindowOf(config: { conversionWindowHours?: number }): number {
  return config.conversionWindowHours ?? DEFAULT_CONVERSION_WINDOW_HOURS;
}

function summary(row: CampaignRow, now: number): Campaign {
  const delivered = Number(row.delivered);
  const failed = Number(row.failed);
  const expired = Number(row.expired);
  return {
    campaignId: String(row.id),
    title: row.title,
    body: row.body,
    url: row.url,
    icon: row.icon,
    image: row.image,
    actions: row.actions ?? [],
    texts: row.texts ?? {},
    appBadge: row.app_badge,
    segment: row.segment_sid,
    audience: row.audience_id,
    subscriberId: row.subscriber_id,
    ttl: row.ttl,
    urgency: row.urgency,
    status: row.status,
    sendAt: isoTimeOrNull(row.send_at),
    localTime: row.local_time,
    nextDueAt: isoTimeOrNull(row.next_due_at),
    createdAt: isoTime(row.created_at),
    completedAt: isoTimeOrNull(row.completed_at),
    recipients: Number(row.recipients),
    // sent: every delivery the sender has finished with, whatever the push service answered
    sent: delivered + failed + expired,
    pending: Number(row.pending),
    delivered,
    failed,
    expired,
    capped: Number(row.capped),
    dropped: Number(row.dropped),
    topic: row.topic,
    variants: [],
    failures: [],
    winnerAt: isoTimeOrNull(row.winner_at),
    winnerVariant: row.winner_variant,
    winnerAfterMinutes: row.winner_after_minutes,
    testDeliveredAt: isoTimeOrNull(row.test_delivered_at),
    winnerNote: row.winner_note,
    resendOf: row.resend_of === null ? null : String(row.resend_of),
    prunedAfterDays: row.pruned_after_days,
    shown: Number(row.shown),
    clicked: Number(row.clicked),
    closed: Number(row.closed),
    reportsWithToken: Number(row.reports_with_token),
    reportsWithEndpoint: Number(row.reports_with_endpoint),
    // of the subscribers the push service took it for, the share who clicked
    clickRate: delivered > 0 ? Number(row.clicked) / delivered : null,
    conversions: Number(row.conversions),
    revenue: (row.revenue ?? []).map((entry) => ({ currency: entry.currency, amount: Number(entry.amount) })),
    throttlePerMinute: row.throttle_per_minute,
    deliverAt: row.deliver_at,
    estimatedFinishAt: estimatedFinish(row, now),
  };
}

/** When what waits of a campaign should have gone: by its rate from its next slot, at least its last due time. */
function estimatedFinish(row: CampaignRow, now: number): string | null {
  const pending = Number(row.pending);
  if (pending === 0 || row.last_due_at === null) return null;
  const lastDue = new Date(row.last_due_at).getTime();
  if (row.throttle_per_minute === null) return lastDue > now ? new Date(lastDue).toISOString() : null;
  const start = Math.max(
    row.next_due_at ? new Date(row.next_due_at).getTime() : 0,
    row.throttle_next_at ? new Date(row.throttle_next_at).getTime() : 0,
  );
  return new Date(Math.max(lastDue, throttledFinish(row.throttle_per_minute, pending, start, now))).toISOString();
}

/** The owner's campaigns, newest first (automated messages are counted per automation instead). */
export async function listCampaigns(
  db: Queryable,
  siteHash: string,
  limit: number,
  offset: number,
  conversionWindowHours = DEFAULT_CONVERSION_WINDOW_HOURS,
  filter: CampaignFilter = NO_CAMPAIGN_FILTER,
  now: number = Date.now(),
): Promise<Campaign[]> {
  // the filter's placeholders come after these four (campaign-search.ts)
  const { rows } = await db.query<CampaignRow>(
    `${CAMPAIGN_SELECT} WHERE c.site_hash = $1 AND c.automation IS NULL${filter.where}
     ORDER BY c.id ${filter.order === 'oldest' ? 'ASC' : 'DESC'} LIMIT $3 OFFSET $4`,
    [siteHash, conversionWindowHours, limit, offset, ...filter.params],
  );
  // why deliveries failed: one query for the page
  const failures = await campaignFailures(
    db,
    rows.map((row) => String(row.id)),
  );
  // an A/B test's variants with their figures: a query for each test on the page
  return Promise.all(
    rows
      .map((row) => ({ ...summary(row, now), failures: failures.get(String(row.id)) ?? [] }))
      .map(async (campaign) => (campaign.winnerAt ? { ...campaign, variants: await variantFigures(db, campaign.campaignId) } : campaign)),
  );
}

export async function getCampaign(
  db: Queryable,
  siteHash: string,
  campaignId: string,
  conversionWindowHours = DEFAULT_CONVERSION_WINDOW_HOURS,
  now: number = Date.now(),
): Promise<Campaign | null> {
  const { rows } = await db.query<CampaignRow>(`${CAMPAIGN_SELECT} WHERE c.site_hash = $1 AND c.id = $3`, [
    siteHash,
    conversionWindowHours,
    campaignId,
  ]);
  if (!rows[0]) return null;
  const campaign = { ...summary(rows[0], now), failures: (await campaignFailures(db, [campaignId])).get(campaignId) ?? [] };
  const revenue = campaign.winnerAt ? await variantRevenue(db, campaignId, conversionWindowHours) : undefined;
  const variants = (campaign.winnerAt ? await variantFigures(db, campaignId) : []).map((v) => ({
    ...v,
    revenue: revenue?.get(v.variant) ?? [],
  }));
  const byLanguage = await languageFigures(db, campaignId, campaign.texts, variants);
  const bestHour = rows[0].deliver_at === 'best-hour' ? await bestHourFigures(db, campaignId, rows[0].best_hour_holdout ?? 0) : undefined;
  return { ...campaign, variants, ...(byLanguage ? { byLanguage } : {}), ...(bestHour ? { bestHour } : {}) };
}

/**
 * A campaign's figures by the language each subscriber got (the best match of their stored language among the
 * texts of their variant, else of the campaign), or undefined for a campaign without texts per language. One
 * query grouped by stored language and variant (a few rows), matched here.
 */
async function languageFigures(
  db: Queryable,
  campaignId: string,
  texts: LanguageTexts,
  variants: CampaignVariantFigures[],
): Promise<CampaignLanguageFigures[] | undefined> {
  if (Object.keys(texts).length === 0 && !variants.some((variant) => variant.texts)) return undefined;
  // folded (delivery-breakdown.ts): kept after subscribers are deleted and delivery rows pruned
  const [rows, winner] = await Promise.all([
    breakdownOf(db, campaignId, ['language', 'variant']),
    db.query<{ winner_variant: number | null }>('SELECT winner_variant FROM campaigns WHERE id = $1', [campaignId]),
  ]);
  const winnerVariant = winner.rows[0]?.winner_variant ?? null;
  const figures = new Map<string, CampaignLanguageFigures>();
  const entry = (language: string) => {
    let found = figures.get(language);
    if (!found) figures.set(language, (found = { language, recipients: 0, delivered: 0, clicked: 0 }));
    return found;
  };
  entry(DEFAULT_LANGUAGE);
  for (const language of Object.keys(texts)) entry(language);
  for (const row of rows) {
    // the rest of an A/B test got the winner
    const variant = row.variant ?? winnerVariant;
    const variantTexts = variant === null ? undefined : variants.find((entry) => entry.variant === variant)?.texts;
    const figure = entry(bestLanguage(variantTexts ?? texts, row.language) ?? DEFAULT_LANGUAGE);
    figure.recipients += row.recipients;
    figure.delivered += row.delivered;
    figure.clicked += row.clicked;
  }
  return [...figures.values()];
}
