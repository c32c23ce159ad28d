// Shop orders in the database. An order's details are its buyer's: the subscriber the shop named, or whoever
// brings the one-time read token the provider issued with the order (the shop puts it on the buyer's order page);
// only the token's SHA-256 is kept, and the read it allows clears it.
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database.ts';

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Stores (or replaces) a shop order, read back by /api/v1/shopify/getOrderDetails; `subscriberId`: the buyer,
 * when the shop knows it. Resolves with the order's new read token (an earlier one no longer reads it).
 */
export async function storeShopOrder(
  db: Queryable,
  siteHash: string,
  orderId: string,
  order: object,
  subscriberId?: string,
): Promise<string> {
  const readToken = randomBytes(24).toString('base64url');
  await db.query(
    `INSERT INTO shop_orders (site_hash, order_id, details, subscriber_id, read_token_hash) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (site_hash, order_id) DO UPDATE
       SET details = EXCLUDED.details, subscriber_id = EXCLUDED.subscriber_id, read_token_hash = EXCLUDED.read_token_hash`,
    [siteHash, orderId, JSON.stringify(order), subscriberId ?? null, tokenHash(readToken)],
  );
  return readToken;
}

/**
 * The order's details for its buyer, in one statement (two readers of one token cannot both get them): the
 * subscriber the order names, or the bearer of its read token, which the read uses up; a proven subscriber who
 * brings the token becomes the order's buyer when the shop named none. Undefined for anyone else, and alike for an
 * order that does not exist, so order ids cannot be walked.
 */
export async function readShopOrder(
  db: Queryable,
  siteHash: string,
  orderId: string,
  reader: { subscriberId?: string; readToken?: string },
): Promise<unknown> {
  const { rows } = await db.query<{ details: unknown }>(
    `UPDATE shop_orders SET
       subscriber_id = CASE WHEN subscriber_id IS NULL AND read_token_hash = $4 THEN $3 ELSE subscriber_id END,
       read_token_hash = CASE WHEN read_token_hash = $4 THEN NULL ELSE read_token_hash END
     WHERE site_hash = $1 AND order_id = $2 AND (subscriber_id = $3 OR read_token_hash = $4)
     RETURNING details`,
    [siteHash, orderId, reader.subscriberId ?? null, reader.readToken ? tokenHash(reader.readToken) : null],
  );
  return rows[0]?.details;
}
