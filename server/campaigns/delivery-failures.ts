// Why deliveries failed, grouped by the push service's status, reason and host: a campaign's (the owner API's
// `failures`, `push-kit send`, `push-kit campaigns show`, the provider's log line), an automation's and a
// subscriber's. The reason is deliveries.last_error, made safe to show when it was written (push-failure.ts). The
// groups of a campaign's rows that were deleted (pruned after the reporting window, a subscriber erased) are kept
// in delivery_failure_counts (migration 39), so a campaign's report says why its deliveries failed for as long as
// it says how many did.
import type { Queryable } from '../db/database.ts';
import { foldCampaignRows } from './fold-campaign-rows.ts';
import { failureDocsUrl, type DeliveryFailureGroup, type LastDeliveryFailure } from '../../contract/delivery-failures.ts';

/** The most groups shown per campaign (the rest are the rarest). */
export const MAX_FAILURE_GROUPS = 20;

interface GroupRow {
  key: string;
  status_code: number | null;
  reason: string;
  failure_host: string | null;
  count: string;
}

const group = (row: GroupRow): DeliveryFailureGroup => ({
  status: row.status_code,
  reason: row.reason,
  host: row.failure_host,
  count: Number(row.count),
  docsUrl: failureDocsUrl(row.status_code, row.reason, row.failure_host),
});

// Rows stored before the reasons were kept have none to show.
const GROUP_COLUMNS = `d.status_code, coalesce(d.last_error, 'no reason recorded') AS reason, d.failure_host, count(*) AS count`;

function grouped(rows: GroupRow[]): Map<string, DeliveryFailureGroup[]> {
  const groups = new Map<string, DeliveryFailureGroup[]>();
  for (const row of rows) {
    const list = groups.get(String(row.key)) ?? [];
    if (list.length < MAX_FAILURE_GROUPS) list.push(group(row));
    groups.set(String(row.key), list);
  }
  return groups;
}

/**
 * The failed and expired deliveries of each campaign by reason, most first: its rows' and its deleted rows' (as its
 * failed and expired counts keep them).
 */
export async function campaignFailures(db: Queryable, campaignIds: readonly string[]): Promise<Map<string, DeliveryFailureGroup[]>> {
  if (campaignIds.length === 0) return new Map();
  const { rows } = await db.query<GroupRow>(
    `SELECT key, status_code, reason, failure_host, sum(count) AS count FROM (
       SELECT d.campaign_id AS key, ${GROUP_COLUMNS}
       FROM deliveries d WHERE d.campaign_id = ANY($1::bigint[]) AND d.status IN ('failed', 'expired')
       GROUP BY 1, 2, 3, 4
       UNION ALL
       SELECT k.campaign_id, k.status_code, k.reason, k.failure_host, k.count FROM delivery_failure_counts k
       WHERE k.campaign_id = ANY($1::bigint[])
     ) g GROUP BY 1, 2, 3, 4 ORDER BY 1, sum(count) DESC, 3`,
    [campaignIds],
  );
  return grouped(rows);
}

/**
 * The failed and expired messages of one automation of a site by reason, most first. From its rows only, as its
 * figures are: an automation's rows are not pruned.
 */
export async function automationFailures(db: Queryable, siteHash: string, kind: string): Promise<DeliveryFailureGroup[]> {
  const { rows } = await db.query<GroupRow>(
    `SELECT c.automation AS key, ${GROUP_COLUMNS}
     FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id
     WHERE c.site_hash = $1 AND c.automation = $2 AND d.status IN ('failed', 'expired')
     GROUP BY 1, 2, 3, 4 ORDER BY count(*) DESC, 3`,
    [siteHash, kind],
  );
  return grouped(rows).get(kind) ?? [];
}

/** Folds a campaign's kept failure groups (a row per group per deleting statement) into one row per group. */
export async function foldFailureCounts(db: Queryable, campaignId: string): Promise<void> {
  await foldCampaignRows(db, 'delivery_failure_counts', ['status_code', 'reason', 'failure_host'], campaignId);
}

/** A subscriber's failed and expired deliveries by reason, and the last of them. */
export async function subscriberFailures(
  db: Queryable,
  subscriberId: string,
): Promise<{ failures: DeliveryFailureGroup[]; lastFailure: LastDeliveryFailure | null }> {
  const { rows } = await db.query<GroupRow>(
    `SELECT d.subscriber_id AS key, ${GROUP_COLUMNS}
     FROM deliveries d WHERE d.subscriber_id = $1 AND d.status IN ('failed', 'expired')
     GROUP BY 1, 2, 3, 4 ORDER BY count(*) DESC, 3`,
    [subscriberId],
  );
  const last = await db.query<{
    campaign_id: string;
    status: 'failed' | 'expired';
    status_code: number | null;
    reason: string;
    failure_host: string | null;
    attempts: number;
    updated_at: Date;
  }>(
    `SELECT d.campaign_id, d.status, d.status_code, coalesce(d.last_error, 'no reason recorded') AS reason, d.failure_host,
       d.attempts, d.updated_at
     FROM deliveries d WHERE d.subscriber_id = $1 AND d.status IN ('failed', 'expired')
     ORDER BY d.updated_at DESC, d.id DESC LIMIT 1`,
    [subscriberId],
  );
  const row = last.rows[0];
  return {
    failures: grouped(rows).get(subscriberId) ?? [],
    lastFailure: row
      ? {
          campaignId: String(row.campaign_id),
          outcome: row.status,
          status: row.status_code,
          reason: row.reason,
          host: row.failure_host,
          attempts: row.attempts,
          at: new Date(row.updated_at).toISOString(),
          docsUrl: failureDocsUrl(row.status_code, row.reason, row.failure_host),
        }
      : null,
  };
}
