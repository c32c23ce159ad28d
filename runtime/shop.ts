// Online-shop events (spec sections 2, 3 and 9): a cart-add form read back from /cart.js after 2 s, and an
// order page (checkouts/{id}) read from the provider after 3 s. Each stores wingifyEcomData-{event}, emits
// ecom.{event} and evaluates the shop segments of that event. Skipped when tracking is refused.
import type { QueryParams, RuntimeServices } from './services.ts';
import { joinOnce } from './segments.ts';
import type { OrderDetailsQuery } from '../contract/shop-order.ts';
import type { CartEventForm } from '../contract/automations.ts';
import { CART_POSTED, ECOM_DATA } from './storage-keys.ts';

const CART_READ_DELAY_MS = 2000;
const ORDER_READ_DELAY_MS = 3000;
const ORDER_PAGE = /checkouts\/([^/?#]+)/;

interface CartItem {
  product_id: unknown;
  title: unknown;
  price: number;
  sku: unknown;
  product_type: unknown;
  url: unknown;
  vendor: unknown;
  quantity: unknown;
  image?: unknown;
}
interface Cart {
  items: CartItem[];
  total_price: number;
  item_count: number;
}

/** Cart event data of the last added item (Shopify's cart: prices in cents). */
function cartEventData(cart: Cart): Record<string, unknown> {
  const item = cart.items[0] as CartItem;
  return {
    pId: item.product_id,
    pName: item.title,
    price: item.price / 100,
    sku: item.sku,
    cat: item.product_type,
    pUrl: item.url,
    brand: item.vendor,
    quant: item.quantity,
    cTotal: cart.total_price / 100,
    cItemsCount: cart.item_count,
  };
}

/** Order event data from the provider's order reply (`{ order: {...} }`, or the order itself); its list is `items` or `orders`. */
function orderEventData(reply: unknown): Record<string, unknown> {
  const order = ((reply as { order?: unknown })?.order ?? reply) as Record<string, unknown>;
  const items = (order.items ?? order.orders ?? []) as Record<string, unknown>[];
  return {
    total: order.total,
    shipping: order.shipping,
    tax: order.tax,
    discount: order.discount,
    coupon: order.coupon,
    orders: items.map((item) => ({
      pId: item.pId,
      pName: item.pName,
      pPrice: item.pPrice,
      pVariant: item.pVariant,
      pSku: item.pSku,
      pBrand: item.pBrand,
      pQuant: item.pQuant,
      pImgUrl: item.pImgUrl,
    })),
  };
}

export function startShop(services: RuntimeServices): void {
  if (!services.trackingAllowed()) return;
  const record = (event: 'add_cart' | 'order', data: Record<string, unknown>): void => {
    if (!services.trackingAllowed()) return;
    services.local.set(ECOM_DATA + event, JSON.stringify(data));
    services.emit('ecom.' + event);
    for (const segment of services.site.shopSegments) {
      if (segment.event !== event) continue;
      try {
        if (segment.test(data)) void joinOnce(services, segment.sid, segment.vn);
      } catch {
        // A condition that fails on odd shop data simply does not hold.
      }
    }
  };

  // A subscriber's cart event goes to the provider too: its abandoned-cart automation reminds them of the product.
  const reportCart = (image: unknown, data: Record<string, unknown>): void => {
    const subscriberId = services.subscriberId();
    if (!subscriberId || !services.trackingAllowed()) return;
    const form = {
      hash: services.site.hash,
      subscriberId,
      subscriberSecret: services.secret(),
      pId: data.pId,
      pName: data.pName,
      price: data.price,
      pUrl: data.pUrl,
      pImgUrl: typeof image === 'string' && image ? new URL(image, location.href).href : undefined,
    } as Record<keyof CartEventForm, QueryParams[string]>;
    services.postForm(services.site.serverSyncUrl + '/api/v1/shopify/cart', form).catch(() => {
      // No reminder for this cart: the shop event itself already happened.
    });
  };

  // A plain form post leaves the page before 2 s pass, so the post time is kept for the session and the page
  // the shop redirects to (or this one, when the theme posts with fetch) reads the cart 2 s after the post.
  const readCart = (): void => {
    if (!services.session.get(CART_POSTED)) return;
    services.session.remove(CART_POSTED);
    services
      .get(location.origin + '/cart.js', {})
      .then((cart) => {
        if (!(cart as Cart | null)?.items?.length) return;
        const data = cartEventData(cart as Cart);
        record('add_cart', data);
        reportCart((cart as Cart).items[0]!.image, data);
      })
      .catch(() => {
        // No cart to read: no event.
      });
  };
  const scheduleCartRead = (): void => {
    const postedAt = Number(services.session.get(CART_POSTED));
    if (postedAt) setTimeout(readCart, Math.min(Math.max(postedAt + CART_READ_DELAY_MS - Date.now(), 0), CART_READ_DELAY_MS));
  };
  document.addEventListener(
    'submit',
    (event) => {
      const form = event.target as HTMLFormElement | null;
      if (!form || !String(form.getAttribute?.('action') ?? '').includes('/cart/add')) return;
      services.session.set(CART_POSTED, String(Date.now()));
      scheduleCartRead();
    },
    true,
  );
  scheduleCartRead();

  const orderId = ORDER_PAGE.exec(location.pathname)?.[1];
  if (orderId) {
    setTimeout(() => {
      services
        .get(services.site.serverSyncUrl + '/api/v1/shopify/getOrderDetails', {
          hash: services.site.hash,
          orderId,
          subscriberId: services.subscriberId(),
          subscriberSecret: services.secret(),
        } satisfies OrderDetailsQuery)
        .then((reply) => {
          if (reply) record('order', orderEventData(reply));
        })
        .catch(() => {
          // Unknown order: no event.
        });
    }, ORDER_READ_DELAY_MS);
  }
}
