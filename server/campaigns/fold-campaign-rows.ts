// The folding of a campaign's kept figures (delivery_counts, delivery_breakdown, delivery_failure_counts): each
// table holds a delta row per statement that changed them, and folding replaces a campaign's rows by one per
// distinct key with their sum (zero ones dropped). Rows written meanwhile by other transactions are not in this
// statement's snapshot: they stay, and are folded next time.
import type { Queryable } from '../db/database.ts';

export async function foldCampaignRows(db: Queryable, table: string, keys: readonly string[], campaignId: string): Promise<void> {
  const columns = keys.join(', ');
  await db.query(
    `WITH folded AS (DELETE FROM ${table} WHERE campaign_id = $1 RETURNING ${columns}, count)
     INSERT INTO ${table} (campaign_id, ${columns}, count)
     SELECT $1, ${columns}, sum(count) FROM folded GROUP BY ${columns} HAVING sum(count) <> 0`,
    [campaignId],
  );
}
