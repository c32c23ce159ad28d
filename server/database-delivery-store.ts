// The DeliveryStore of server/push on the provider's database. Work is claimed with FOR UPDATE SKIP LOCKED
// and a claimed_at stamp, so several `serve` or `send` processes can run one campaign and none sends a
// delivery another has claimed; a claim older than the lease (a runner that died) is taken again.
import type { Database } from './database.ts';
import type { Delivery, DeliveryResult, DeliveryStore } from './push/delivery-store.ts';

export const CLAIM_LEASE_SECONDS = 300;

interface ClaimedRow {
  id: string;
  campaign_id: string;
  attempts: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  title: string;
  body: string;
  url: string | null;
  icon: string | null;
  image?: string | null;
  actions?: { action: string; title: string; url?: string }[] | null;
}

/** What the service worker receives (worker/sw.ts reads these fields). */
export function notificationPayload(row: Pick<ClaimedRow, 'campaign_id' | 'title' | 'body' | 'url' | 'icon' | 'image' | 'actions'>): string {
  return JSON.stringify({
    title: row.title,
    body: row.body,
    ...(row.url ? { url: row.url } : {}),
    ...(row.icon ? { icon: row.icon } : {}),
    ...(row.image ? { image: row.image } : {}),
    ...(row.actions?.length ? { actions: row.actions } : {}),
    campaignId: String(row.campaign_id),
  });
}

export class DatabaseDeliveryStore implements DeliveryStore {
  constructor(private readonly db: Database) {}

  async claimPending(campaignId: string, limit: number): Promise<Delivery[]> {
    return this.db.transaction(async (tx) => {
      // A subscriber that lost its subscription since the campaign was created cannot be sent to.
      await tx.query(
        `UPDATE deliveries d SET status = 'expired', last_error = 'subscription gone before sending', updated_at = now()
         FROM subscribers s
         WHERE d.campaign_id = $1 AND d.status = 'pending' AND s.id = d.subscriber_id
           AND (s.endpoint IS NULL OR s.p256dh IS NULL OR s.auth IS NULL OR s.status <> 'subscribed')`,
        [campaignId],
      );
      const { rows } = await tx.query<ClaimedRow>(
        `WITH picked AS (
           SELECT id FROM deliveries
           WHERE campaign_id = $1 AND status = 'pending' AND next_attempt_at <= now()
             AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => $3))
           ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED
         )
         UPDATE deliveries d SET claimed_at = now(), attempts = d.attempts + 1, updated_at = now()
         FROM picked, subscribers s, campaigns c
         WHERE d.id = picked.id AND s.id = d.subscriber_id AND c.id = d.campaign_id
         RETURNING d.id, d.campaign_id, d.attempts, s.endpoint, s.p256dh, s.auth, c.title, c.body, c.url, c.icon, c.image, c.actions`,
        [campaignId, limit, CLAIM_LEASE_SECONDS],
      );
      return rows.map((row) => ({
        id: String(row.id),
        campaignId: String(row.campaign_id),
        attempts: row.attempts,
        subscription: { endpoint: row.endpoint, keys: { p256dh: row.p256dh, auth: row.auth } },
        payload: notificationPayload(row),
      }));
    });
  }

  async markResult(deliveryId: string, status: DeliveryResult, detail?: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ subscriber_id: string }>(
        `UPDATE deliveries SET status = $2, last_error = $3, claimed_at = NULL, updated_at = now()
         WHERE id = $1 RETURNING subscriber_id`,
        [deliveryId, status, detail ?? null],
      );
      if (status === 'expired' && rows[0]) {
        await tx.query(`UPDATE subscribers SET status = 'expired', updated_at = now() WHERE id = $1`, [rows[0].subscriber_id]);
      }
    });
  }

  async reschedule(deliveryId: string, notBefore: Date): Promise<void> {
    await this.db.query(
      `UPDATE deliveries SET next_attempt_at = $2, claimed_at = NULL, updated_at = now() WHERE id = $1`,
      [deliveryId, notBefore.toISOString()],
    );
  }
}
