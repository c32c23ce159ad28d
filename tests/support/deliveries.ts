// A campaign's deliveries as the sender leaves them when the push service took every message: for tests about
// what happens after a delivery (reports, figures) that do not need a push service to send it.
import type { Queryable } from '../../server/db/database.ts';

export async function markDelivered(db: Queryable, campaignId: string): Promise<void> {
  await db.query(`UPDATE deliveries SET status = 'delivered', claimed_at = NULL, updated_at = now() WHERE campaign_id = $1`, [campaignId]);
}
