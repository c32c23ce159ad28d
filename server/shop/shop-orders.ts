import type { Queryable } from '../db/database.ts';

/** Stores (or replaces) a shop order, read back by /api/v1/shopify/getOrderDetails; `subscriberId`: the buyer, when the shop knows it. */
export async function storeShopOrder(
  db: Queryable,
  siteHash: string,
  orderId: string,
  order: object,
  subscriberId?: string,
): Promise<void> {
  await db.query(
    `INSERT INTO shop_orders (site_hash, order_id, details, subscriber_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (site_hash, order_id) DO UPDATE SET details = EXCLUDED.details, subscriber_id = EXCLUDED.subscriber_id`,
    [siteHash, orderId, JSON.stringify(order), subscriberId ?? null],
  );
}

export async function shopOrderExists(db: Queryable, siteHash: string, orderId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM shop_orders WHERE site_hash = $1 AND order_id = $2', [siteHash, orderId]);
  return rows.length === 1;
}

/**
 * The order's details for its subscriber: the one it names, or, when it names none yet, the reader, who then
 * becomes its subscriber (one statement, so two first readers cannot both claim it). Undefined for another.
 */
export async function claimShopOrder(db: Queryable, siteHash: string, orderId: string, subscriberId: string): Promise<unknown> {
  const { rows } = await db.query<{ details: unknown }>(
    `UPDATE shop_orders SET subscriber_id = $3
      WHERE site_hash = $1 AND order_id = $2 AND (subscriber_id IS NULL OR subscriber_id = $3)
      RETURNING details`,
    [siteHash, orderId, subscriberId],
  );
  return rows[0]?.details;
}
