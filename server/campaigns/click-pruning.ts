// A campaign's revenue and conversions are its clickers' shop orders (campaign-revenue.ts): the click events say
// who clicked and when. Events are pruned after the event retention (default 180 days, server/db/event-retention.ts),
// which leaves a campaign's click events to this prune: the statement that deletes them keeps, per campaign,
// variant and currency, the orders of the deleted clickers within the conversion window after their click, in
// campaign_revenue_kept (migration 43), folded to a row per group as delivery counts are. The report adds the kept
// rows to what the remaining clicks give, so it shows the same revenue and conversions before and after pruning.
// The same statement keeps the overview's clicks and conversions per quarter hour (migration 44).
// A clicker's variant is on their delivery row, or kept with them when the rows were pruned (migration 40).
// With an event retention shorter than the conversion window, an order placed after its click was pruned counts
// nothing (the window is 72 hours unless the site says, at most 720; the retention 180 days unless the provider says).
// The window is the one in force at the prune: a site that changes it later reads its remaining clicks under the new
// one and what was kept as counted (docs/automations.md#revenue: nothing is left to count those clicks again).
// An order is the overview's conversion once its last click in the window goes; the statement decides that from the
// clicks it sees left. Two providers on one PostgreSQL deleting two clicks of one order at once would each see the
// other's still there and keep it in neither, so each batch runs in a transaction that first takes one advisory lock:
// the second waits, and its statement (a new snapshot in READ COMMITTED) sees what the first deleted.
// An automation's message (a campaign to one subscriber, who reports its click once) counts for the automation's
// figures (server/automations/automation-messages.ts automationStats) with the automation's own window, end
// included: the statement keeps a row per message and currency, its orders in that window (the message converted)
// and the revenue of those no other click of the automation still counts. An order after two clicks of one
// automation is its revenue once: kept with the last of those clicks to go (the one of the latest message when
// they go in one statement), as the overview's conversion is. Those rows are never folded (one click, one statement).
// A provider prunes the clicks of the sites it hosts, and no other's: a site's window is in its config, which only
// a provider hosting it reads. Clicks of a site in the database that this provider does not host (another provider
// on the same PostgreSQL hosts it; its config left the folder; it comes back later) wait for a provider that hosts
// it: pruned with a default window they would lose the conversions and revenue its own longer window keeps.
import type { Database } from '../db/database.ts';
import { keepNotificationDays, quarterOf } from '../db/notification-days-kept.ts';
import { AUTOMATION_DEFAULTS, type AutomationKind } from '../../contract/automations.ts';
import { foldCampaignRows } from './fold-campaign-rows.ts';

const PRUNE_BATCH = 1000;
/** Held by a click prune's batch for its transaction, so two processes' batches run one after the other. */
const CLICK_PRUNE_LOCK = 'push-kit click prune';
/** Each automation's window for a site whose automations' windows the prune is not told. */
const AUTOMATION_WINDOW_DEFAULTS = JSON.stringify(
  Object.fromEntries(Object.entries(AUTOMATION_DEFAULTS).map(([kind, settings]) => [kind, settings.conversionWindowHours])),
);

/** The sites whose clicks the prune takes, and the conversion windows in hours it keeps their conversions with. */
export interface ConversionWindows {
  /** Each hosted site's conversionWindowHours, by site hash: its campaigns'. Only these sites' clicks are pruned. */
  sites: Record<string, number>;
  /** Each site's automations' conversionWindowHours as they run now, by site hash and kind (default: the defaults). */
  automations?: Record<string, Partial<Record<AutomationKind, number>>>;
}

/**
 * Deletes the campaigns' and automated messages' click events older than `days`, a batch per statement, keeping
 * their conversions and revenue; then folds the kept rows of each campaign it touched. Resolves with how many
 * events went.
 */
export async function pruneCampaignClicks(db: Database, days: number, windows: ConversionWindows, batch = PRUNE_BATCH): Promise<number> {
  const touched = new Set<string>();
  let deleted = 0;
  for (;;) {
    const { rows } = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [CLICK_PRUNE_LOCK]);
      return tx.query<{ count: number; campaigns: (string | number)[] }>(
        `WITH gone AS (
         DELETE FROM events WHERE id IN (
           SELECT id FROM events WHERE kind = 'clicked' AND campaign_id IS NOT NULL AND created_at < now() - make_interval(days => $1::int)
              AND $3::jsonb ? site_hash
           ORDER BY created_at, id LIMIT $2
         ) RETURNING id, site_hash, campaign_id, subscriber_id, created_at
       ), converted AS (
         -- the overview's conversions: an order counts on its day while one of the clicks before it in the window is
         -- left, so it is kept when the last of them goes (the statement still sees the rows it deletes)
         SELECT DISTINCT o.site_hash, o.order_id, o.created_at FROM gone g
           JOIN shop_orders o ON o.site_hash = g.site_hash AND o.subscriber_id = g.subscriber_id AND o.created_at >= g.created_at
             AND o.created_at < g.created_at + make_interval(hours => ($3::jsonb ->> g.site_hash)::int)
          WHERE NOT EXISTS (
            SELECT 1 FROM events e WHERE e.subscriber_id = o.subscriber_id AND e.kind = 'clicked' AND e.campaign_id IS NOT NULL
               AND e.created_at <= o.created_at
               AND e.created_at > o.created_at - make_interval(hours => ($3::jsonb ->> o.site_hash)::int)
               AND e.id NOT IN (SELECT id FROM gone))
       ), days AS (
         ${keepNotificationDays(
           ['clicked', 'conversions'],
           `SELECT site_hash, quarter, sum(clicked), sum(conversions) FROM (
              SELECT site_hash, ${quarterOf('created_at')} AS quarter, 1 AS clicked, 0 AS conversions FROM gone
              UNION ALL SELECT site_hash, ${quarterOf('created_at')}, 0, 1 FROM converted
            ) figures GROUP BY 1, 2`,
         )}
       ), clicker AS (
         SELECT campaign_id, subscriber_id, min(created_at) AS clicked_at FROM gone WHERE subscriber_id IS NOT NULL GROUP BY 1, 2
       ), kept AS (
         INSERT INTO campaign_revenue_kept (campaign_id, variant, currency, conversions, amount)
         SELECT k.campaign_id, coalesce(d.variant, v.variant), o.details->>'currency', count(DISTINCT o.order_id),
                coalesce(sum((o.details->>'total')::numeric) FILTER (WHERE o.details ? 'currency'), 0)
           FROM clicker k JOIN campaigns c ON c.id = k.campaign_id AND c.automation IS NULL
           JOIN shop_orders o ON o.site_hash = c.site_hash AND o.subscriber_id = k.subscriber_id AND o.created_at >= k.clicked_at
             AND o.created_at < k.clicked_at + make_interval(hours => ($3::jsonb ->> c.site_hash)::int)
           LEFT JOIN deliveries d ON d.campaign_id = k.campaign_id AND d.subscriber_id = k.subscriber_id
           LEFT JOIN campaign_variant_clickers v ON v.campaign_id = k.campaign_id AND v.subscriber_id = k.subscriber_id
          GROUP BY 1, 2, 3
         RETURNING campaign_id
       ), message_click AS (
         SELECT c.id AS campaign_id, c.site_hash, c.automation, c.subscriber_id, g.created_at AS clicked_at,
                coalesce(($4::jsonb -> c.site_hash ->> c.automation)::int, ($5::jsonb ->> c.automation)::int) AS hours
           FROM gone g JOIN campaigns c ON c.id = g.campaign_id AND c.automation IS NOT NULL AND c.subscriber_id = g.subscriber_id
       ), message_order AS (
         SELECT m.campaign_id, m.site_hash, m.automation, m.subscriber_id, m.hours, m.clicked_at, o.order_id, o.details, o.created_at AS ordered_at
           FROM message_click m JOIN shop_orders o ON o.site_hash = m.site_hash AND o.subscriber_id = m.subscriber_id
            AND o.created_at >= m.clicked_at AND o.created_at <= m.clicked_at + make_interval(hours => m.hours)
       ), message_revenue AS (
         -- an order is the automation's revenue while a click of it before the order in the window is left
         SELECT DISTINCT ON (a.site_hash, a.automation, a.order_id) a.campaign_id, a.order_id FROM message_order a
          WHERE NOT EXISTS (
            SELECT 1 FROM campaigns c JOIN events e ON e.campaign_id = c.id AND e.kind = 'clicked' AND e.subscriber_id = c.subscriber_id
             WHERE c.site_hash = a.site_hash AND c.automation = a.automation AND c.subscriber_id = a.subscriber_id
               AND e.created_at <= a.ordered_at AND e.created_at >= a.ordered_at - make_interval(hours => a.hours)
               AND e.id NOT IN (SELECT id FROM gone))
          ORDER BY a.site_hash, a.automation, a.order_id, a.clicked_at DESC, a.campaign_id DESC
       ), message_kept AS (
         INSERT INTO campaign_revenue_kept (campaign_id, variant, currency, conversions, amount)
         SELECT a.campaign_id, NULL::smallint, a.details->>'currency', count(*),
                coalesce(sum((a.details->>'total')::numeric) FILTER (WHERE a.details ? 'currency' AND r.order_id IS NOT NULL), 0)
           FROM message_order a LEFT JOIN message_revenue r ON r.campaign_id = a.campaign_id AND r.order_id = a.order_id
          GROUP BY a.campaign_id, a.details->>'currency'
       )
       SELECT (SELECT count(*)::int FROM gone) AS count, (SELECT coalesce(jsonb_agg(DISTINCT campaign_id), '[]'::jsonb) FROM kept) AS campaigns`,
        [days, batch, JSON.stringify(windows.sites), JSON.stringify(windows.automations ?? {}), AUTOMATION_WINDOW_DEFAULTS],
      );
    });
    for (const id of rows[0]!.campaigns) touched.add(String(id));
    deleted += rows[0]!.count;
    if (rows[0]!.count < batch) break;
  }
  for (const id of touched) await foldCampaignRows(db, 'campaign_revenue_kept', ['variant', 'currency'], id, ['conversions', 'amount']);
  return deleted;
}
