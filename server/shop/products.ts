// The shop's product catalogue and its subscribers' interest in products (docs/automations.md). The shop posts
// its products as they are now (POST /api/v1/sites/:name/products); a lower price in the same currency, or a product
// back in stock, is a change, numbered per product, that the priceDrop and backInStock automations announce. An update
// that changes neither is stored and announces nothing. push.js reports views, the cart call add-to-carts; each is
// kept as the subscriber's last view or cart of the product, in the provider's clock, for their latest 100 products.
import type { Database, Queryable } from '../db/database.ts';
import type { ProductUpdate } from '../../contract/shop-input.ts';

/** A product of the shop's catalogue, as its last update gave it (what the automations' messages name). */
export interface CatalogueProduct {
  id: string;
  name: string;
  url: string | null;
  image: string | null;
  price: number;
  currency: string;
  /** The price before a drop, for `{oldPrice}`: on a priceDrop change only. */
  oldPrice?: number;
}

export interface ProductChange {
  kind: 'priceDrop' | 'backInStock';
  product: CatalogueProduct;
  /** The product's change number: a subscriber gets one message per change. */
  change: number;
}

interface ProductRow {
  product_id: string;
  name: string;
  url: string | null;
  image: string | null;
  price: string;
  currency: string;
  in_stock: boolean;
  change_count: number;
}

const stored = (row: ProductRow): CatalogueProduct => ({
  id: row.product_id,
  name: row.name,
  url: row.url,
  image: row.image,
  price: Number(row.price),
  currency: row.currency,
});

/** Stores the products (in one transaction, each row locked while compared) and resolves with the changes found. */
export async function updateProducts(db: Database, siteHash: string, products: ProductUpdate[], now: number): Promise<ProductChange[]> {
  return db.transaction(async (tx) => {
    const changes: ProductChange[] = [];
    const at = new Date(now).toISOString();
    for (const product of products) {
      const { rows } = await tx.query<ProductRow>('SELECT * FROM shop_products WHERE site_hash = $1 AND product_id = $2 FOR UPDATE', [
        siteHash,
        product.id,
      ]);
      const before = rows[0];
      const dropped = before !== undefined && before.currency === product.currency && product.price < Number(before.price);
      const restocked = before !== undefined && !before.in_stock && product.inStock;
      let count = before?.change_count ?? 0;
      const next: CatalogueProduct = {
        id: product.id,
        name: product.name,
        url: product.url ?? null,
        image: product.image ?? null,
        price: product.price,
        currency: product.currency,
      };
      // A product out of stock is announced when it is back, not when its price drops meanwhile.
      if (dropped && product.inStock)
        changes.push({ kind: 'priceDrop', product: { ...next, oldPrice: Number(before.price) }, change: ++count });
      if (restocked) changes.push({ kind: 'backInStock', product: next, change: ++count });
      await tx.query(
        `INSERT INTO shop_products (site_hash, product_id, name, url, image, price, currency, in_stock, change_count, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (site_hash, product_id) DO UPDATE SET name = $3, url = $4, image = $5, price = $6, currency = $7,
           in_stock = $8, change_count = $9, updated_at = $10`,
        [siteHash, product.id, product.name, next.url, next.image, product.price, product.currency, product.inStock, count, at],
      );
    }
    return changes;
  });
}

export async function productOf(db: Queryable, siteHash: string, productId: string): Promise<CatalogueProduct | undefined> {
  const { rows } = await db.query<ProductRow>('SELECT * FROM shop_products WHERE site_hash = $1 AND product_id = $2', [
    siteHash,
    productId,
  ]);
  return rows[0] && stored(rows[0]);
}

/** The products a subscriber's interest is kept for, latest first: posting views of made-up ids grows nothing beyond. */
export const INTEREST_PER_SUBSCRIBER_MAX = 100;

/** Keeps the subscriber's last view (or add-to-cart) of the product, and their latest INTEREST_PER_SUBSCRIBER_MAX products only. */
export async function recordInterest(
  db: Queryable,
  siteHash: string,
  subscriberId: string,
  productId: string,
  what: 'viewed' | 'carted',
  now: number,
): Promise<void> {
  const column = what === 'viewed' ? 'viewed_at' : 'carted_at';
  await db.query(
    `INSERT INTO product_interest (site_hash, subscriber_id, product_id, ${column}) VALUES ($1, $2, $3, $4)
     ON CONFLICT (subscriber_id, product_id) DO UPDATE SET ${column} = EXCLUDED.${column}`,
    [siteHash, subscriberId, productId, new Date(now).toISOString()],
  );
  await db.query(
    `DELETE FROM product_interest WHERE subscriber_id = $1 AND product_id NOT IN (
       SELECT product_id FROM product_interest WHERE subscriber_id = $1
       ORDER BY greatest(viewed_at, carted_at) DESC, product_id LIMIT $2
     )`,
    [subscriberId, INTEREST_PER_SUBSCRIBER_MAX],
  );
}
