// Shop orders and carts (spec section 3, "Shop order event data").
export { shopRoutes } from './routes.ts';
export { storeShopOrder } from './shop-orders.ts';
