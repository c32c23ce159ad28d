import type { Queryable } from './database.ts';

/** Stores (or replaces) a shop order, read back by /api/v1/shopify/getOrderDetails. */
export async function storeShopOrder(db: Queryable, siteHash: string, orderId: string, order: object): Promise<void> {
  await db.query(
    `INSERT INTO shop_orders (site_hash, order_id, details) VALUES ($1, $2, $3)
     ON CONFLICT (site_hash, order_id) DO UPDATE SET details = EXCLUDED.details`,
    [siteHash, orderId, JSON.stringify(order)],
  );
}
