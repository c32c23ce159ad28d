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
  /** 0 when left out, as are tax and discount. */
  shipping?: number;
  tax?: number;
  discount?: number;
  coupon?: string;
  items: ShopOrderItem[];
}

/** POST /api/v1/shopify/orders (JSON, with the owner key); answered `{status: "success", orderId}` with 201. */
export interface ShopOrderRequest {
  hash: string;
  orderId: string;
  order: ShopOrder;
  /** The buyer's subscriber id (pushkit.getSubscriberId() at checkout), when the shop knows it: only that subscriber reads the order. */
  subscriberId?: string;
}
export type ShopOrderStoredReply = { status: 'success'; orderId: string };

/**
 * GET {sync server}/api/v1/shopify/getOrderDetails (JSON or JSONP). The details go only to a subscriber's
 * browser that shows its secret, and only to the subscriber the shop named, or else the first one that reads
 * them (the order is then theirs); any other caller gets the order id alone.
 */
export type OrderDetailsQuery = { hash: string; orderId: string; subscriberId?: string; subscriberSecret?: string; callback?: string };
export type OrderDetailsReply = {
  status: 'success';
  order: { orderId: string } & (
    Partial<Record<keyof ShopOrder, never>> | (Required<Pick<ShopOrder, 'shipping' | 'tax' | 'discount'>> & ShopOrder)
  );
};
