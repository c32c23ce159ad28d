// A/B tests: a campaign's 2 to 4 variants go to its test share of the audience, split evenly and at random;
// the rest waits. The winner clock starts when the test share has gone (no test delivery left pending, by the
// sender's clock): winnerAfterMinutes later the variant with the best click rate (clicked / delivered, the
// lower variant on a tie) becomes the winner and goes to them. A test with too few deliveries (a variant
// delivered to nobody) or clicks (none at all) has no winner: the first variant goes to the rest, and the
// campaign says why (winnerNote).
import type { Queryable } from '../db/database.ts';
import type { CampaignInput } from '../../contract/campaign-input.ts';
import type { CampaignVariantFigures } from '../../contract/owner-api.ts';
import type { LanguageTexts } from '../../contract/languages.ts';
import { breakdownOf } from './delivery-breakdown.ts';

/** Stores the variants and splits the campaign's deliveries: the test share by variant, the rest held for the winner. */
export async function splitForTest(
  tx: Queryable,
  campaignId: string,
  input: CampaignInput,
  recipients: number,
  start: number,
): Promise<void> {
  const variants = input.variants!;
  for (const [index, variant] of variants.entries()) {
    await tx.query(
      `INSERT INTO campaign_variants (campaign_id, variant, title, body, url, icon, image, texts) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        campaignId,
        index,
        variant.title ?? null,
        variant.body ?? null,
        variant.url ?? null,
        variant.icon ?? null,
        variant.image ?? null,
        variant.texts && Object.keys(variant.texts).length ? JSON.stringify(variant.texts) : null,
      ],
    );
  }
  const testSize = Math.min(recipients, Math.max(variants.length, Math.round(recipients * input.testFraction!)));
  const winnerAt = new Date(start + input.winnerAfterMinutes! * 60_000).toISOString();
  await tx.query(
    `WITH ranked AS (SELECT id, row_number() OVER (ORDER BY random()) - 1 AS n FROM deliveries WHERE campaign_id = $1)
     UPDATE deliveries d SET variant = CASE WHEN r.n < $2 THEN (r.n % $3)::smallint END,
       next_attempt_at = CASE WHEN r.n < $2 THEN d.next_attempt_at ELSE $4::timestamptz END
     FROM ranked r WHERE d.id = r.id`,
    [campaignId, testSize, variants.length, winnerAt],
  );
  // winner_at is the earliest the winner may go until the test share has been delivered (decideWinner moves it)
  await tx.query('UPDATE campaigns SET winner_at = $2, winner_after_minutes = $3 WHERE id = $1', [
    campaignId,
    winnerAt,
    input.winnerAfterMinutes,
  ]);
}

/** Each variant's figures: its test deliveries, delivered, clicked (once per subscriber) and click rate. */
export async function variantFigures(db: Queryable, campaignId: string): Promise<CampaignVariantFigures[]> {
  const { rows } = await db.query<{
    variant: number;
    title: string | null;
    body: string | null;
    texts: LanguageTexts | null;
    url: string | null;
    icon: string | null;
    image: string | null;
  }>(
    `SELECT v.variant, v.title, v.body, v.texts, v.url, v.icon, v.image FROM campaign_variants v WHERE v.campaign_id = $1 ORDER BY v.variant`,
    [campaignId],
  );
  // folded (delivery-breakdown.ts): kept after subscribers are deleted and delivery rows pruned
  const folded = await breakdownOf(db, campaignId, ['variant']);
  return rows.map((row) => {
    const figures = folded.find((entry) => entry.variant === row.variant);
    const delivered = figures?.delivered ?? 0;
    const clicked = figures?.clicked ?? 0;
    return {
      variant: row.variant,
      title: row.title,
      body: row.body,
      texts: row.texts,
      url: row.url,
      icon: row.icon,
      image: row.image,
      recipients: figures?.recipients ?? 0,
      delivered,
      clicked,
      clickRate: delivered > 0 ? clicked / delivered : null,
      revenue: [],
    };
  });
}

/** The fewest deliveries each variant needs, and clicks the test needs, for a winner (else: no winner). */
export const AB_MIN_DELIVERED_PER_VARIANT = 1;
export const AB_MIN_CLICKS = 1;

/**
 * Runs an A/B test's winner clock (by `now`, the sender's clock). While test deliveries are pending the clock
 * has not started: a winner time that has come is put off by winnerAfterMinutes. Once none is pending, the
 * winner time becomes that moment plus winnerAfterMinutes. When it has come, the winner is picked, or the
 * first variant with a note saying why there is no winner. The rest's deliveries are due at the winner time.
 */
export async function decideWinner(db: Queryable, campaignId: string, now: number): Promise<void> {
  const { rows } = await db.query<{
    winner_at: Date | null;
    winner_variant: number | null;
    winner_after_minutes: number | null;
    test_delivered_at: Date | null;
  }>('SELECT winner_at, winner_variant, winner_after_minutes, test_delivered_at FROM campaigns WHERE id = $1', [campaignId]);
  const campaign = rows[0];
  if (!campaign?.winner_at || campaign.winner_variant !== null) return;
  const winnerAt = new Date(campaign.winner_at).getTime();
  // a test made before the clock waited for its test share: its time is the one it was given
  const after = campaign.winner_after_minutes;
  if (after !== null && campaign.test_delivered_at === null) {
    const { rows: waiting } = await db.query<{ count: string }>(
      `SELECT count(*) AS count FROM deliveries WHERE campaign_id = $1 AND variant IS NOT NULL AND status = 'pending'`,
      [campaignId],
    );
    const testPending = Number(waiting[0]!.count) > 0;
    if (!testPending) return moveWinnerTime(db, campaignId, now + after * 60_000, new Date(now).toISOString());
    if (winnerAt <= now) return moveWinnerTime(db, campaignId, now + after * 60_000, null);
    return;
  }
  if (winnerAt > now) return;
  const figures = await variantFigures(db, campaignId);
  const clicks = figures.reduce((sum, figure) => sum + figure.clicked, 0);
  const note = figures.some((figure) => figure.delivered < AB_MIN_DELIVERED_PER_VARIANT)
    ? 'too-few-deliveries'
    : clicks < AB_MIN_CLICKS
      ? 'too-few-clicks'
      : null;
  const best = note
    ? figures[0]!
    : figures.reduce((winner, candidate) => ((candidate.clickRate ?? -1) > (winner.clickRate ?? -1) ? candidate : winner));
  await db.query('UPDATE campaigns SET winner_variant = $2, winner_note = $3 WHERE id = $1 AND winner_variant IS NULL', [
    campaignId,
    best.variant,
    note,
  ]);
}

/** Sets the winner time (and when the test share was delivered, once known); the rest is due then. */
async function moveWinnerTime(db: Queryable, campaignId: string, at: number, testDeliveredAt: string | null): Promise<void> {
  const winnerAt = new Date(at).toISOString();
  await db.query('UPDATE campaigns SET winner_at = $2, test_delivered_at = coalesce($3::timestamptz, test_delivered_at) WHERE id = $1', [
    campaignId,
    winnerAt,
    testDeliveredAt,
  ]);
  await db.query(`UPDATE deliveries SET next_attempt_at = $2 WHERE campaign_id = $1 AND variant IS NULL AND status = 'pending'`, [
    campaignId,
    winnerAt,
  ]);
}
