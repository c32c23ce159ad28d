// The shop event data of spec section 3 as segment conditions name it (docs/conditions.md): each field of the
// cart event and of the order event, with its type. push.js writes these fields (runtime/shop.ts); the compiler
// checks conditions against them. Constants and types only.

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
