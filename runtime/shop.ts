// Online-shop events (spec sections 2, 3 and 9): a cart-add form read back from /cart.js after 2 s, and an
// order page (checkouts/{id}) read from the provider 3 s after its load. Each stores wingifyEcomData-{event}, emits
// ecom.{event} and evaluates the shop segments of that event. Skipped when tracking is refused or the visitor
// opted out (docs/spec-silent-cases.md, "Shop and Safari"): neither /cart.js nor the order is read then.
import type { QueryParams, RuntimeServices } from './services.ts';
import { joinOnce } from './segments.ts';
import { ORDER_TOKEN_SELECTOR, type OrderDetailsQuery } from '../contract/shop-order.ts';
import type { CartEventForm } from '../contract/automations.ts';
import { Product, type CartEventData, type ProductViewForm } from '../contract/shop-events.ts';
import { Key } from './storage-keys.ts';
import { afterLoad } from './after-load.ts';
import { shopEventsAllowed } from './tracking-consent.ts';

const CART_READ_DELAY_MS = 2000;
/** How long a posted cart add waits for a read that finds its line (the posting page's, then the next page's). */
const CART_POST_KEPT_MS = 60_000;
const ORDER_READ_DELAY_MS = 3000;
const ORDER_PAGE = /checkouts\/([^/?#]+)/;

interface CartItem {
  id?: unknown;
  variant_id?: unknown;
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

/**
 * The cart line just added: the line of the variant the form posted (its `id` field); without one, the first line,
 * where Shopify puts the newest addition. None when the cart has no such line (yet).
 */
function addedLine(cart: Cart, variant: string | undefined): CartItem | undefined {
  return variant ? cart.items.find((line) => String(line.variant_id || line.id) === variant) : cart.items[0];
}

function cartEventData(cart: Cart, item: CartItem): CartEventData {
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
  const order = ((reply && (reply as { order?: unknown }).order) || reply) as Record<string, unknown>;
  const items = (order.items || order.orders || []) as Record<string, unknown>[];
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
  const allowed = (): boolean => shopEventsAllowed(services);
  if (!allowed()) return;
  const record = (event: 'add_cart' | 'order', data: Record<string, unknown>): void => {
    if (!allowed()) return;
    services.local_.set(Key.ECOM_DATA + event, JSON.stringify(data));
    services.emit_('ecom.' + event);
    for (const segment of services.site_.shopSegments) {
      if (segment.event !== event) continue;
      try {
        if (segment.test(data)) void joinOnce(services, segment.sid, segment.vn);
      } catch {
        // A condition that fails on odd shop data simply does not hold.
      }
    }
  };

  // A subscriber's shop events go to the provider too (docs/automations.md): the cart event (the abandoned-cart
  // reminder names its product) and the view of a product page (browse abandonment, price drop, back in stock).
  // Never without tracking consent: no request is made then.
  const report = (path: string, form: Record<string, QueryParams[string]>): void => {
    const subscriberId = services.subscriberId_();
    if (!subscriberId || !allowed()) return;
    form.hash = services.site_.hash;
    form.subscriberId = subscriberId;
    form.subscriberSecret = services.secret_();
    services.postForm_(services.site_.serverSyncUrl + '/api/v1/shopify/' + path, form).catch(() => {
      // No message about this event: the shop event itself already happened.
    });
  };
  const reportCart = (image: unknown, data: Record<string, unknown>): void =>
    report('cart', {
      pId: data.pId,
      pName: data.pName,
      price: data.price,
      pUrl: data.pUrl,
      pImgUrl: typeof image === 'string' && image ? new URL(image, location.href).href : undefined,
    } as Record<keyof CartEventForm, QueryParams[string]>);
  // A product page names its product in <meta name="pushkit-product" content="{product id}">.
  const product = document.querySelector<HTMLMetaElement>(Product.SELECTOR);
  if (product) report('view', { pId: product.content } satisfies Partial<ProductViewForm>);

  // A plain form post leaves the page, so the post time (and the variant posted) is kept for the session, and the
  // page the shop redirects to reads the cart 2 s after the post; a theme that posts with fetch (the submit's
  // default prevented) stays, and this page reads it. A navigation can take longer than 2 s to commit (a slow shop),
  // and a read the old page makes then races it: the page can go before the reply (and the report to the provider
  // with it), and the cart it reads may not hold the addition yet. So the mark is used up when a read makes the event,
  // and a cart without the posted variant's line on the posting page is left to the next page's read. A page started
  // after the post (the shop had answered it) reads once: without the line the add failed, and later views read
  // nothing (the spec's one read after an add, not one per view).
  const readCart = (): void => {
    const posted = services.session_.get(Key.CART_POSTED);
    if (!posted) return;
    const [at, variant] = posted.split(' ');
    if (!allowed() || Date.now() - parseInt(at!) > CART_POST_KEPT_MS) return services.session_.remove(Key.CART_POSTED);
    // this page's start on the same clock as the post's time (performance.now() counts from it)
    const last = parseInt(at!) < Date.now() - performance.now();
    const done = (): void => {
      // unless another read of this page made the event already
      if (services.session_.get(Key.CART_POSTED) === posted) services.session_.remove(Key.CART_POSTED);
    };
    services
      .get_(location.origin + '/cart.js', {})
      .then((cart) => {
        const item = cart && (cart as Cart).items ? addedLine(cart as Cart, variant) : undefined;
        // another read of this page made the event already, or the post is not in the cart (yet)
        if (!item || services.session_.get(Key.CART_POSTED) !== posted) {
          if (last) done();
          return;
        }
        services.session_.remove(Key.CART_POSTED);
        if (!allowed()) return;
        const data = cartEventData(cart as Cart, item);
        record('add_cart', data);
        reportCart(item.image, data);
      })
      .catch(() => {
        // No cart to read: no event.
        if (last) done();
      });
  };
  const scheduleCartRead = (): void => {
    const postedAt = parseInt(services.session_.get(Key.CART_POSTED)!);
    if (postedAt) setTimeout(readCart, Math.min(Math.max(postedAt + CART_READ_DELAY_MS - Date.now(), 0), CART_READ_DELAY_MS));
  };
  document.addEventListener(
    'submit',
    (event) => {
      const form = event.target as HTMLFormElement | null;
      if (!allowed() || !form || !form.getAttribute || !String(form.getAttribute('action')).includes('/cart/add')) return;
      // Capped: the cookie rides on every request to the shop (a variant id is a short number).
      const field = form.elements.namedItem('id') as HTMLInputElement | null;
      const variant = field && field.value && field.value.slice(0, 64);
      services.session_.set(Key.CART_POSTED, Date.now() + (variant ? ' ' + variant : ''));
      // once every listener has run: only a post that stays on this page is read here
      setTimeout(() => event.defaultPrevented && scheduleCartRead());
    },
    true,
  );
  scheduleCartRead();

  const orderId = (ORDER_PAGE.exec(location.pathname) || [])[1];
  if (orderId) {
    const token = document.querySelector<HTMLMetaElement>(ORDER_TOKEN_SELECTOR);
    const readOrder = (): void => {
      if (!allowed()) return;
      services
        .get_(services.site_.serverSyncUrl + '/api/v1/shopify/getOrderDetails', {
          hash: services.site_.hash,
          orderId,
          subscriberId: services.subscriberId_(),
          subscriberSecret: services.secret_(),
          // the one-time token the shop put on its buyer's order page (contract/shop-order.ts)
          readToken: token ? token.content : undefined,
        } satisfies OrderDetailsQuery)
        .then((reply) => {
          if (reply) record('order', orderEventData(reply));
        })
        .catch(() => {
          // Unknown order: no event.
        });
    };
    // 3 s after the page's load, however long the chunk took to arrive
    void afterLoad().then(() => setTimeout(readOrder, (services.loadedAt_ || Date.now()) + ORDER_READ_DELAY_MS - Date.now()));
  }
}
