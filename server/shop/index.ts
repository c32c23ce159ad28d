// Shop orders and carts (spec section 3, "Shop order event data"), product views and the product catalogue.
export { shopRoutes } from './routes.ts';
export { storeShopOrder } from './shop-orders.ts';
export { productRoutes } from './product-routes.ts';
export { type CatalogueProduct, updateProducts } from './products.ts';
