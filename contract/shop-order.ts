// Shop orders (spec section 3, "Shop order event data"): the shop's back end posts an order with the site's
// owner key; the order page's push.js reads it back by id. Types only.

export interface ShopOrderItem {
  pId: string | number;
  pName: string;
  pPrice: number;
  pVariant?: string;
  pSku?: string;
  pBrand?: string;
  pQuant: number;
  pImgUrl?: string;
}

export interface ShopOrder {
  total: number;
  /** ISO 4217 code of the total (`EUR`); an order without one counts as a conversion but adds no revenue. */
  currency?: string;
  /** 0 when left out, as are tax and discount. */
  shipping?: number;
  tax?: number;
  discount?: number;
  coupon?: string;
  items: ShopOrderItem[];
}

/**
 * POST /api/v1/shopify/orders (JSON, with the owner key); answered `{status: "success", orderId, readToken}` with
 * 201. The shop puts `readToken` on the buyer's order page (`<meta name="pushkit-order" content="...">`):
 * push.js reads the order with it, once.
 */
export interface ShopOrderRequest {
  hash: string;
  orderId: string;
  order: ShopOrder;
  /** The buyer's subscriber id (pushkit.getSubscriberId() at checkout), when the shop knows it: only that subscriber reads the order. */
  subscriberId?: string;
}
export type ShopOrderStoredReply = { status: 'success'; orderId: string; readToken: string };

/** The meta tag of the buyer's order page that carries the order's read token. */
export const ORDER_TOKEN_META = 'pushkit-order';
export const ORDER_TOKEN_SELECTOR = '[name=pushkit-order]';

/**
 * GET {sync server}/api/v1/shopify/getOrderDetails (JSON or JSONP). The details go only to the subscriber the
 * shop named (its browser showing its secret), or to the bearer of the order's read token, once (a subscriber who
 * brings it becomes the order's buyer when the shop named none); any other caller gets the order id alone, and an
 * unknown order answers the same.
 */
export type OrderDetailsQuery = {
  hash: string;
  orderId: string;
  subscriberId?: string;
  subscriberSecret?: string;
  readToken?: string;
  callback?: string;
};
export type OrderDetailsReply = {
  status: 'success';
  order: { orderId: string } & (
    Partial<Record<keyof ShopOrder, never>> | (Required<Pick<ShopOrder, 'shipping' | 'tax' | 'discount'>> & ShopOrder)
  );
};

/** Revenue in one currency: the sum of the totals of orders in it. */
export interface CurrencyAmount {
  /** ISO 4217 code. */
  currency: string;
  amount: number;
}
