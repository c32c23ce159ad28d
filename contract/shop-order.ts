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
}
export type ShopOrderStoredReply = { status: 'success'; orderId: string };

/** GET {sync server}/api/v1/shopify/getOrderDetails (JSON or JSONP). */
export type OrderDetailsQuery = { hash: string; orderId: string; callback?: string };
export type OrderDetailsReply = {
  status: 'success';
  order: { orderId: string } & Required<Pick<ShopOrder, 'shipping' | 'tax' | 'discount'>> & ShopOrder;
};
