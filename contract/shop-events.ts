// The shop event data of spec section 3 as segment conditions name it (docs/conditions.md): each field of the
// cart event and of the order event, with its type. push.js writes these fields (runtime/shop.ts); the compiler
// checks conditions against them. Constants and types only.
// A product page names its product for push.js with a meta tag, and push.js reports the view (docs/automations.md).

export const CART_EVENT_FIELDS = {
  pId: 'string',
  pName: 'string',
  price: 'number',
  sku: 'string',
  cat: 'string',
  pUrl: 'string',
  brand: 'string',
  quant: 'number',
  cTotal: 'number',
  cItemsCount: 'number',
} as const;

/** `items` is the order's item count. */
export const ORDER_EVENT_FIELDS = {
  total: 'number',
  shipping: 'number',
  tax: 'number',
  discount: 'number',
  coupon: 'string',
  items: 'number',
} as const;

/** The cart event's data as push.js records it. */
export type CartEventData = Record<keyof typeof CART_EVENT_FIELDS, unknown>;

/** The meta tag of a product page that names its product: `<meta name="pushkit-product" content="{product id}">`. */
export const PRODUCT_META = 'pushkit-product';
/** An enum so that esbuild writes the selector in place in push.js (a `const` string stays a variable). */
export enum Product {
  SELECTOR = '[name=pushkit-product]',
}

/**
 * POST {sync server}/api/v1/shopify/view (form): push.js reports a subscriber's view of a product page, only with
 * tracking consent. `pId` is the id the shop uses in its product updates (POST /api/v1/sites/:name/products).
 */
export type ProductViewForm = {
  hash: string;
  subscriberId: string;
  subscriberSecret: string;
  pId: string;
};
export type ProductViewReply = { status: 'success'; recorded: boolean };
