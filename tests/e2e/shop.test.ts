// Issue 4's online-shop events in Chromium on the example shop: the product page's cart form posts to the
// cart-add action (a real form post that leaves the page), the cart is read from /cart.js 2 s after the post
// and becomes the cart event (prices divided by 100); the order page (checkouts/{id}) reads the order from
// the provider 3 s after it loads. Each event is stored as wingifyEcomData-{event} and evaluates the shop
// segments of that event, which the provider records. The cart event describes the item just added, and an
// opted-out visitor's shop pages read neither the cart nor the order (docs/spec-silent-cases.md). A real
// subscription (fake GCM check-in), the built push.js and the real provider; real waits where a read must come,
// since the delays are the behaviour under test. Where nothing may be read, the pages' clock is moved past the
// delays instead (`pastReadDelays`). A product page's view reaches the provider only with tracking consent.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMember } from '../../server/segments/segment-store.ts';
import { EXAMPLE_PRODUCTS } from '../../cli/dev/example-site-server.ts';
import { borrowChromium, type TestBrowser } from '../support/browser.ts';
import { sharedFakeGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { subscribeThroughApi } from '../support/subscribe.ts';

const SHOP_SEGMENTS = [
  { sid: 'cart-over-40', event: 'add_cart', ss: 'cTotal > 40', vn: 1 },
  { sid: 'big-spenders', event: 'add_cart', ss: 'cTotal > 1000', vn: 1 },
  { sid: 'buyers', event: 'order', vn: 1 },
];
const PEN = EXAMPLE_PRODUCTS[0]!;
const INK = EXAMPLE_PRODUCTS[1]!;

let stack: Stack;
let gcm: FakeGcm;
let browser: TestBrowser;
let subscriberId = '';

beforeAll(async () => {
  gcm = await sharedFakeGcm();
  [stack, browser] = await Promise.all([
    startStack({
      overrides: {
        isShopifyConnectedAccount: true,
        shopifySegmentations: SHOP_SEGMENTS,
        segmentations: [],
        pageClickTrackingConcent: false,
        automations: { abandonedCart: { enabled: true, delayMinutes: 60 } },
      },
    }),
    borrowChromium(gcm.chromiumArgs),
  ]);
  await browser.context.grantPermissions(['notifications'], { origin: stack.siteUrl });
  const page = await browser.context.newPage();
  await page.goto(`${stack.siteUrl}/`);
  subscriberId = (await subscribeThroughApi(page)).subscriberId;
  await page.close();
  // Time flows as usual; a test that shows nothing is read moves it on past the read delays (pastReadDelays).
  await browser.context.clock.install();
});
afterAll(async () => {
  await browser?.close();
  await gcm?.close();
  await stack?.close();
});

interface Timed {
  url: URL;
  at: number;
}

/** Records, with their times, the page's requests (across its navigations) whose path matches. */
function recordRequests(page: Page, path: RegExp): Timed[] {
  const seen: Timed[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (path.test(url.pathname)) seen.push({ url, at: Date.now() });
  });
  return seen;
}

/**
 * Everything a shop page would read has been read: once push.js has done its view's work and the network has been
 * idle (the shop's chunk, when the view needs one, has loaded and started), the page's clock (the context's: later
 * pages keep the offset) is moved past both read delays, which runs their timers at once; then one request of the
 * page's own, after which any request those timers made has been reported (the DevTools channel keeps the order).
 */
async function pastReadDelays(page: Page): Promise<void> {
  await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
  await page.waitForLoadState('networkidle');
  await page.clock.runFor(3500);
  const marker = page.waitForRequest((request) => request.url().endsWith('/icon.png?past-read-delays'));
  await page.evaluate(() => fetch('/icon.png?past-read-delays', { cache: 'no-store' }).then((reply) => reply.arrayBuffer()));
  await marker;
}

const ecomData = async (page: Page, event: string) =>
  JSON.parse((await page.evaluate((key) => localStorage.getItem(key), `wingifyEcomData-${event}`)) ?? 'null') as Record<
    string,
    unknown
  > | null;
const member = (sid: string) => isMember(stack.db, stack.config.hash, sid, subscriberId);
/** The abandoned-cart reminders waiting for this subscriber (docs/automations.md). */
const waitingReminders = async () =>
  (
    await stack.db.query<{ title: string; url: string | null }>(
      `SELECT c.title, c.url FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id
        WHERE c.automation = 'abandonedCart' AND c.subscriber_id = $1 AND d.status = 'pending'`,
      [subscriberId],
    )
  ).rows;

describe('online shop', () => {
  it('a cart-add form post: /cart.js read 2 s after the post, the cart event with every field (prices / 100), the matching shop segment joined', async () => {
    const page = await browser.context.newPage();
    const cartReads = recordRequests(page, /^\/cart\.js$/);
    const adds = recordRequests(page, /^\/as$/);
    await page.goto(`${stack.siteUrl}${PEN.url}`);
    await page.locator('input[name="quantity"]').fill('2');
    const postedAt = Date.now();
    await page.locator('#product-form button[type="submit"]').click();
    await page.waitForURL(`**${PEN.url}`);

    await expect.poll(() => cartReads.length, { timeout: 10_000 }).toBe(1);
    expect(cartReads[0]!.at - postedAt).toBeGreaterThanOrEqual(1900);
    await expect
      .poll(() => ecomData(page, 'add_cart'))
      .toEqual({
        pId: PEN.productId,
        pName: PEN.title,
        price: PEN.priceCents / 100,
        sku: PEN.sku,
        cat: PEN.productType,
        pUrl: PEN.url,
        brand: PEN.vendor,
        quant: 2,
        cTotal: (2 * PEN.priceCents) / 100,
        cItemsCount: 2,
      });
    await expect.poll(() => member('cart-over-40')).toBe(true);
    // polled: the page's request event can reach the test after the provider stored the membership it asked for
    await expect
      .poll(() => adds.map((add) => [add.url.searchParams.get('id'), add.url.searchParams.getAll('subscriber_list[]')]))
      .toEqual([['cart-over-40', [subscriberId]]]);
    await expect.poll(() => page.evaluate(() => localStorage.getItem('wingifySegment-cart-over-40'))).toBe('1');
    expect(await member('big-spenders')).toBe(false);
    expect(await member('buyers')).toBe(false);
    // push.js reported the subscriber's cart event: the abandoned-cart reminder waits, naming the product
    await expect.poll(waitingReminders).toEqual([{ title: `Still thinking about ${PEN.title}?`, url: `${stack.siteUrl}${PEN.url}` }]);

    // The read happened once: a later view does not read the cart again; a page that is not checkouts/{id} reads no order.
    const orderReads = recordRequests(page, /^\/api\/v1\/shopify\/getOrderDetails$/);
    await page.goto(`${stack.siteUrl}/`);
    await pastReadDelays(page);
    expect(cartReads).toHaveLength(1);
    expect(orderReads).toEqual([]);
    await page.close();
  });

  it('the order page: the order read from the provider 3 s after load, the order event with every field, the order segment joined', async () => {
    const page = await browser.context.newPage();
    const orderReads = recordRequests(page, /^\/api\/v1\/shopify\/getOrderDetails$/);
    const cartReads = recordRequests(page, /^\/cart\.js$/);
    await page.goto(`${stack.siteUrl}/cart`);
    // before the order page starts, as the cart case takes its post's time: this process hears of the page's load
    // later than it happens (270 ms later once, on a loaded machine), and the read's 3 s count from the load itself
    const checkedOutAt = Date.now();
    await page.locator('form[action="/checkout"] button').click();
    await page.waitForURL('**/checkouts/*');
    const orderId = new URL(page.url()).pathname.split('/').pop()!;

    await expect.poll(() => orderReads.length, { timeout: 10_000 }).toBe(1);
    expect(orderReads[0]!.at - checkedOutAt).toBeGreaterThanOrEqual(2950);
    // the checkout form posts to /checkout, not the cart-add action: more than 2 s later, no cart read
    expect(cartReads).toEqual([]);
    // the order page carries the read token the provider issued with the order, as a shop's would
    const readToken = await page.evaluate(() => document.querySelector('meta[name="pushkit-order"]')?.getAttribute('content'));
    expect(readToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(Object.fromEntries(orderReads[0]!.url.searchParams)).toEqual({
      hash: stack.config.hash,
      orderId,
      subscriberId,
      subscriberSecret: await page.evaluate(() => localStorage.getItem('pushkit_subscriber_secret')),
      readToken,
    });
    await expect
      .poll(() => ecomData(page, 'order'))
      .toEqual({
        total: (2 * PEN.priceCents) / 100,
        shipping: 4.5,
        tax: 0,
        discount: 0,
        coupon: '',
        orders: [
          {
            pId: String(PEN.productId),
            pName: PEN.title,
            pPrice: PEN.priceCents / 100,
            pVariant: String(PEN.variantId),
            pSku: PEN.sku,
            pBrand: PEN.vendor,
            pQuant: 2,
            pImgUrl: `${stack.siteUrl}/icon.png`,
          },
        ],
      });
    await expect.poll(() => member('buyers')).toBe(true);
    // the marker is stored when the join's reply reaches the page, just after the provider stored the membership
    await expect.poll(() => page.evaluate(() => localStorage.getItem('wingifySegment-buyers'))).toBe('1');
    // the order, read by the buyer's order page, withdrew the cart reminder
    expect(await waitingReminders()).toEqual([]);
    await page.close();
  });

  it("a second product added: the cart event describes it (the line of the posted variant), not the cart's first line", async () => {
    const page = await browser.context.newPage();
    const addToCart = async (product: typeof PEN) => {
      await page.goto(`${stack.siteUrl}${product.url}`);
      await page.locator('#product-form button[type="submit"]').click();
      await page.waitForURL(`**${product.url}`);
    };
    await page.goto(`${stack.siteUrl}/`);
    await page.evaluate(() => localStorage.removeItem('wingifyEcomData-add_cart'));
    await addToCart(PEN);
    await expect.poll(() => ecomData(page, 'add_cart').then((data) => data?.pName), { timeout: 10_000 }).toBe(PEN.title);
    // The second add meets a slow shop: the post's answer (and so the navigation's commit) takes over the 2 s read
    // delay. The shop holds the post until the old page's cart read, if it makes one, has its reply (a cart without
    // the ink), or 2.5 s. That read must not become the event, nor use up the read the next page makes.
    let oldPageRead = (): void => {};
    const oldPageReadDone = new Promise<void>((resolve) => (oldPageRead = resolve));
    page.on('requestfinished', (request) => {
      if (new URL(request.url()).pathname === '/cart.js') oldPageRead();
    });
    await page.route('**/cart/add', async (route) => {
      await Promise.race([oldPageReadDone, new Promise((resolve) => setTimeout(resolve, 2500))]);
      await route.continue();
    });
    await addToCart(INK);

    await expect
      .poll(() => ecomData(page, 'add_cart'), { timeout: 10_000 })
      .toEqual({
        pId: INK.productId,
        pName: INK.title,
        price: INK.priceCents / 100,
        sku: INK.sku,
        cat: INK.productType,
        pUrl: INK.url,
        brand: INK.vendor,
        quant: 1,
        cTotal: (PEN.priceCents + INK.priceCents) / 100,
        cItemsCount: 2,
      });
    const cart = (await page.evaluate(() => fetch('/cart.js').then((reply) => reply.json()))) as { items: { title: string }[] };
    expect(cart.items[0]!.title).toBe(PEN.title);
    await page.close();
  });

  it('a failed add (the shop refuses the post): the next view reads /cart.js once, the views after it not at all', async () => {
    // On the browser's own clock: which page made the post is told by time, which this file's installed clock moves.
    const own = await borrowChromium();
    try {
      const page = await own.context.newPage();
      const cartReads = recordRequests(page, /^\/cart\.js$/);
      await page.goto(`${stack.siteUrl}${PEN.url}`);
      // a variant the shop does not sell: it answers 422 and adds nothing
      await page.locator('#product-form input[name="id"]').evaluate((field) => ((field as HTMLInputElement).value = '999999'));
      await page.locator('#product-form button[type="submit"]').click();
      await page.waitForURL('**/cart/add');
      const posted = () => page.evaluate(() => document.cookie.includes('pushkit_cart_posted'));
      expect(await posted()).toBe(true);
      // the next view reads the cart 2 s after the post: no such line, the add failed, and the mark goes
      await page.goto(`${stack.siteUrl}/`);
      await expect.poll(() => cartReads.length, { timeout: 10_000 }).toBe(1);
      await expect.poll(posted).toBe(false);
      // the one after does not read it again (it did, on every view for a minute)
      await page.goto(`${stack.siteUrl}/`);
      await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
      await page.waitForLoadState('networkidle');
      expect(cartReads).toHaveLength(1);
    } finally {
      await own.close();
    }
  });

  it('a product page view (<meta name="pushkit-product">): recorded by the provider with consent, not even sent without', async () => {
    const page = await browser.context.newPage();
    const views = recordRequests(page, /^\/api\/v1\/shopify\/view$/);
    const viewed = async (productId: number) =>
      (
        await stack.db.query('SELECT 1 FROM product_interest WHERE subscriber_id = $1 AND product_id = $2 AND viewed_at IS NOT NULL', [
          subscriberId,
          String(productId),
        ])
      ).rows.length === 1;
    await stack.db.query('DELETE FROM product_interest WHERE subscriber_id = $1', [subscriberId]);
    // The provider stores the view before it answers; the page's request event reaches the test over Chromium's
    // DevTools channel, which can lag behind the request itself: the reply (an event after the request's) says both.
    const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/v1/shopify/view', {
      timeout: 10_000,
    });
    await page.goto(`${stack.siteUrl}${PEN.url}`);
    await answered;
    expect(await viewed(PEN.productId)).toBe(true);
    expect(views).toHaveLength(1);

    await page.evaluate(() =>
      (window as unknown as { pushkit: { setTrackingConsent(allowed: boolean): void } }).pushkit.setTrackingConsent(false),
    );
    await page.goto(`${stack.siteUrl}${INK.url}`);
    // With consent the view goes after the page's load (the shop's chunk): once push.js is ready and the network has
    // been idle, a request would have been made.
    await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
    await page.waitForLoadState('networkidle');
    expect(views).toHaveLength(1);
    expect(await viewed(INK.productId)).toBe(false);
    await page.evaluate(() =>
      (window as unknown as { pushkit: { setTrackingConsent(allowed: boolean): void } }).pushkit.setTrackingConsent(true),
    );
    await page.close();
  });

  it('with tracking consent refused, a cart add joins no shop segment: the cart is not read', async () => {
    const page = await browser.context.newPage();
    const reads = recordRequests(page, /^\/(cart\.js|as)$/);
    await page.goto(`${stack.siteUrl}${INK.url}`);
    await page.evaluate(() =>
      (window as unknown as { pushkit: { setTrackingConsent(allowed: boolean): void } }).pushkit.setTrackingConsent(false),
    );
    const cartMark = async () => (await page.context().cookies()).some((cookie) => cookie.name === 'pushkit_cart_posted');
    expect(await cartMark()).toBe(false);
    await page.locator('#product-form button[type="submit"]').click();
    await page.waitForURL(`**${INK.url}`);
    // nor is the post marked: the mark is a cookie the shop receives with every request
    expect(await cartMark()).toBe(false);
    // Past the 2 s read delay: no cart read, no segment call, and the membership the first add made stays the only one.
    await pastReadDelays(page);
    expect(reads.map((read) => read.url.pathname)).toEqual([]);
    expect(await member('big-spenders')).toBe(false);
    await page.evaluate(() =>
      (window as unknown as { pushkit: { setTrackingConsent(allowed: boolean): void } }).pushkit.setTrackingConsent(true),
    );
    await page.close();
  });

  it("an opted-out visitor's shop pages read neither /cart.js nor the order", async () => {
    const page = await browser.context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    const reads = recordRequests(page, /^\/(cart\.js|api\/v1\/shopify\/getOrderDetails)$/);
    await page.goto(`${stack.siteUrl}/?pushkit_opt_out=1`);
    await expect.poll(() => page.evaluate(() => document.cookie.includes('pushkit_opt_out=1'))).toBe(true);

    await page.goto(`${stack.siteUrl}${PEN.url}`);
    await page.locator('#product-form button[type="submit"]').click();
    await page.waitForURL(`**${PEN.url}`);
    await page.goto(`${stack.siteUrl}/cart`);
    await page.locator('form[action="/checkout"] button').click();
    await page.waitForURL('**/checkouts/*');
    // Past both read delays (2 s after the post, 3 s after the order page loads): nothing was read.
    await pastReadDelays(page);
    expect(reads.map((read) => read.url.pathname)).toEqual([]);
    await page.close();
  });
});
