// The input schemas of the shop's owner API calls (docs/automations.md): an order's currency and the product
// updates behind the price-drop and back-in-stock automations. zod is browser-safe, but runtime/ and worker/
// never import this.
import { z } from 'zod';
import { text } from './text-fields.ts';
import { CAMPAIGN_URL_MAX_LENGTH } from './campaign-limits.ts';

/** The ISO 4217 codes this Node knows (Intl), checked once. */
const CURRENCIES = new Set(typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('currency') : []);

/** An ISO 4217 currency code, upper case (`EUR`, `USD`, `JPY`). */
export const currencySchema = z
  .string({ error: 'must be an ISO 4217 currency code such as EUR' })
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code such as EUR (three capital letters)')
  .refine((code) => CURRENCIES.size === 0 || CURRENCIES.has(code), 'must be an ISO 4217 currency code such as EUR (not a known currency)');

/** A price or total: a non-negative amount. */
export const amountSchema = z
  .number({ error: 'must be a number' })
  .finite()
  .min(0, 'must not be negative')
  .max(1e9, 'must be at most 1000000000');

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(CAMPAIGN_URL_MAX_LENGTH);

/** One product as the shop has it now. */
export const productUpdateSchema = z.strictObject({
  /** The id the product page's `<meta name="pushkit-product">` names. */
  id: text(64).trim().min(1, 'must not be empty'),
  name: text(256).trim().min(1, 'must not be empty'),
  /** The product's page on the site (another origin is not opened: the automation's url is). */
  url: httpUrl.optional(),
  image: httpUrl.optional(),
  price: amountSchema,
  currency: currencySchema,
  inStock: z.boolean({ error: 'must be true or false' }),
});
export type ProductUpdate = z.output<typeof productUpdateSchema>;

/** POST /api/v1/sites/:name/products: up to 1000 products at once. */
export const PRODUCTS_PER_UPDATE_MAX = 1000;
export const productsUpdateSchema = z.strictObject({
  products: z
    .array(productUpdateSchema)
    .min(1, 'give at least one product')
    .max(PRODUCTS_PER_UPDATE_MAX, `must be at most ${PRODUCTS_PER_UPDATE_MAX} products`)
    .refine((products) => new Set(products.map((product) => product.id)).size === products.length, 'must not name a product twice'),
});
export type ProductsUpdateRequest = z.input<typeof productsUpdateSchema>;

/** The reply: how many products were stored, the changes found and the messages they scheduled. */
export type ProductsUpdateReply = {
  status: 'success';
  products: number;
  priceDrops: number;
  backInStock: number;
  scheduled: number;
};
