// The folding of a campaign's kept figures (delivery_counts, delivery_breakdown, delivery_failure_counts,
// campaign_revenue_kept): each table holds a delta row per statement that changed them, and folding replaces a
// campaign's rows by one per distinct key with the sums of its `sums` columns (`count` unless named; a row whose
// first sum is zero is dropped). Rows written meanwhile by other transactions are not in this
// statement's snapshot: they stay, and are folded next time.
import type { Queryable } from '../db/database.ts';

export async function foldCampaignRows(
  db: Queryable,
  table: string,
  keys: readonly string[],
  campaignId: string,
  sums: readonly [string, ...string[]] = ['count'],
): Promise<void> {
  const columns = keys.join(', ');
  const summed = sums.join(', ');
  await db.query(
    `WITH folded AS (DELETE FROM ${table} WHERE campaign_id = $1 RETURNING ${columns}, ${summed})
     INSERT INTO ${table} (campaign_id, ${columns}, ${summed})
     SELECT $1, ${columns}, ${sums.map((sum) => `sum(${sum})`).join(', ')} FROM folded GROUP BY ${columns} HAVING sum(${sums[0]}) <> 0`,
    [campaignId],
  );
}
