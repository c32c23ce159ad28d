// Revenue of a campaign and of its A/B variants (docs/automations.md#revenue): the totals of the shop orders that
// are its conversions (an order of a subscriber who clicked, within the site's conversion window after their first
// click), summed per currency. An order posted without a currency is a conversion with no revenue.
import type { Queryable } from '../db/database.ts';
import type { CurrencyAmount } from '../../contract/shop-order.ts';

/**
 * SQL of a campaign's revenue as a jsonb array of {currency, amount}, for CAMPAIGN_SELECT (`c` the campaign, `$2`
 * the conversion window in hours): the orders of the clickers whose click events remain, and what was kept of those
 * whose click events were pruned (click-pruning.ts).
 */
export const CAMPAIGN_REVENUE = `(SELECT coalesce(jsonb_agg(jsonb_build_object('currency', r.currency, 'amount', r.amount) ORDER BY r.currency), '[]'::jsonb)
     FROM (SELECT a.currency, sum(a.amount) AS amount FROM (
       SELECT o.details->>'currency' AS currency, (o.details->>'total')::numeric AS amount FROM shop_orders o
       JOIN (SELECT e.subscriber_id, min(e.created_at) AS clicked_at FROM events e
             WHERE e.campaign_id = c.id AND e.kind = 'clicked' AND e.subscriber_id IS NOT NULL GROUP BY e.subscriber_id) k
         ON o.subscriber_id = k.subscriber_id
       WHERE o.site_hash = c.site_hash AND o.created_at >= k.clicked_at AND o.created_at < k.clicked_at + make_interval(hours => $2)
         AND o.details ? 'currency'
       UNION ALL
       SELECT kept.currency, kept.amount FROM campaign_revenue_kept kept WHERE kept.campaign_id = c.id AND kept.currency IS NOT NULL
     ) a GROUP BY 1) r)`;

/** SQL of the conversions kept of a campaign's pruned click events, for CAMPAIGN_SELECT (`c` the campaign). */
export const CAMPAIGN_CONVERSIONS_KEPT = `(SELECT coalesce(sum(kept.conversions), 0) FROM campaign_revenue_kept kept WHERE kept.campaign_id = c.id)`;

/**
 * Each variant's revenue: the conversions of the subscribers its test share reached. Who got which variant is on
 * their delivery row, and once the rows are pruned on the clickers kept with their variant (migration 40); once
 * the click events are pruned, in the revenue kept per variant (migration 43).
 */
export async function variantRevenue(
  db: Queryable,
  campaignId: string,
  conversionWindowHours: number,
): Promise<Map<number, CurrencyAmount[]>> {
  const { rows } = await db.query<{ variant: number; currency: string; amount: string }>(
    `SELECT a.variant, a.currency, sum(a.amount) AS amount FROM (
       SELECT k.variant, o.details->>'currency' AS currency, (o.details->>'total')::numeric AS amount FROM shop_orders o
       JOIN (SELECT e.subscriber_id, coalesce(d.variant, v.variant) AS variant, min(e.created_at) AS clicked_at FROM events e
             LEFT JOIN deliveries d ON d.campaign_id = e.campaign_id AND d.subscriber_id = e.subscriber_id
             LEFT JOIN campaign_variant_clickers v ON v.campaign_id = e.campaign_id AND v.subscriber_id = e.subscriber_id
             WHERE e.campaign_id = $1 AND e.kind = 'clicked' AND coalesce(d.variant, v.variant) IS NOT NULL GROUP BY 1, 2) k
         ON o.subscriber_id = k.subscriber_id
       JOIN campaigns c ON c.id = $1 AND o.site_hash = c.site_hash
       WHERE o.created_at >= k.clicked_at AND o.created_at < k.clicked_at + make_interval(hours => $2) AND o.details ? 'currency'
       UNION ALL
       SELECT kept.variant, kept.currency, kept.amount FROM campaign_revenue_kept kept
        WHERE kept.campaign_id = $1 AND kept.variant IS NOT NULL AND kept.currency IS NOT NULL
     ) a GROUP BY 1, 2 ORDER BY 1, 2`,
    [campaignId, conversionWindowHours],
  );
  const byVariant = new Map<number, CurrencyAmount[]>();
  for (const row of rows) {
    const list = byVariant.get(row.variant) ?? [];
    list.push({ currency: row.currency, amount: Number(row.amount) });
    byVariant.set(row.variant, list);
  }
  return byVariant;
}
