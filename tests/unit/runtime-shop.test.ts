// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startShop } from '../../runtime/shop.ts';
import { segmentMarkerKey } from '../../runtime/storage-keys.ts';
import type { ShopSegment } from '../../runtime/site-module.ts';
import type { QueryParams } from '../../runtime/services.ts';
import { SUBSCRIBER_SECRET_OF_DOUBLE, servicesDouble, testSite } from '../support/services-double.ts';

const CART = {
  items: [
    {
      product_id: 42,
      title: 'Ink pot',
      price: 1299,
      sku: 'INK-1',
      product_type: 'Ink',
      url: '/products/ink-pot',
      vendor: 'Noir',
      quantity: 2,
    },
  ],
  total_price: 2598,
  item_count: 2,
};
const ORDER = {
  total: 45.5,
  shipping: 5,
  tax: 3.5,
  discount: 2,
  coupon: 'WELCOME',
  orders: [
    {
      pId: '42',
      pName: 'Ink pot',
      pPrice: 12.99,
      pVariant: 'Black',
      pSku: 'INK-1',
      pBrand: 'Noir',
      pQuant: 2,
      pImgUrl: 'https://shop.test/ink.png',
    },
  ],
};

const reply = (url: string, _params: QueryParams): unknown =>
  url.endsWith('/cart.js')
    ? CART
    : url.endsWith('/getOrderDetails')
      ? { status: 'success', order: { orderId: '1001', ...ORDER } }
      : { status: 'success' };

beforeEach(() => {
  vi.useFakeTimers();
  history.replaceState(null, '', '/products/ink-pot');
  document.body.innerHTML = '<form action="/cart/add" method="post"><button>Add</button></form><form id="search" action="/search"></form>';
  document.querySelectorAll('form').forEach((form) => form.addEventListener('submit', (event) => event.preventDefault()));
});
afterEach(() => vi.useRealTimers());

const submit = (selector: string) =>
  document.querySelector(selector)!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));

describe('cart add', () => {
  it('reads /cart.js 2 s after the cart-add post and builds every field (prices / 100)', async () => {
    const segments: ShopSegment[] = [
      { sid: 'big-cart', vn: 1, event: 'add_cart', test: (data) => (data.cTotal as number) > 20 },
      { sid: 'orders', vn: 1, event: 'order', test: () => true },
    ];
    const { services, calls, local, emitted } = servicesDouble({ site: testSite({ shopSegments: segments }), reply });
    startShop(services);
    submit('#search');
    submit('form[action="/cart/add"]');
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls[0]).toEqual({ kind: 'get', url: location.origin + '/cart.js', params: {} });
    expect(JSON.parse(local.get('wingifyEcomData-add_cart')!)).toEqual({
      pId: 42,
      pName: 'Ink pot',
      price: 12.99,
      sku: 'INK-1',
      cat: 'Ink',
      pUrl: '/products/ink-pot',
      brand: 'Noir',
      quant: 2,
      cTotal: 25.98,
      cItemsCount: 2,
    });
    expect(emitted).toEqual(['ecom.add_cart']);
    expect(calls.filter((call) => call.url.endsWith('/as')).map((call) => call.params.id)).toEqual(['big-cart']);
    expect(local.get(segmentMarkerKey('big-cart'))).toBe('1');
  });

  it('a form whose variant id is huge keeps the session cookie small (it rides on every request to the shop)', async () => {
    document.querySelector('form[action="/cart/add"]')!.insertAdjacentHTML('afterbegin', `<input name="id" value="${'9'.repeat(10_000)}">`);
    const { services, session } = servicesDouble({ reply });
    startShop(services);
    submit('form[action="/cart/add"]');
    expect(session.get('pushkit_cart_posted')!.length).toBeLessThan(100);
  });

  it('skipped when tracking is refused', async () => {
    const { services, calls, local } = servicesDouble({ reply, tracking: false });
    startShop(services);
    submit('form[action="/cart/add"]');
    await vi.advanceTimersByTimeAsync(3000);
    expect(calls).toEqual([]);
    expect(local.get('wingifyEcomData-add_cart')).toBeNull();
  });
});

describe("a subscriber's cart event reaches the provider (the abandoned-cart automation)", () => {
  const cartPosts = (calls: { kind: string; url: string }[]) => calls.filter((call) => call.url.endsWith('/api/v1/shopify/cart'));

  it('posted with the product, the price divided by 100, the image and the subscriber secret', async () => {
    const withImage = (url: string, params: QueryParams) =>
      url.endsWith('/cart.js') ? { ...CART, items: [{ ...CART.items[0], image: '//cdn.shop.test/ink.png' }] } : reply(url, params);
    const { services, calls } = servicesDouble({ reply: withImage });
    startShop(services);
    submit('form[action="/cart/add"]');
    await vi.advanceTimersByTimeAsync(2000);
    expect(cartPosts(calls)).toEqual([
      {
        kind: 'postForm',
        url: 'https://sync.test/api/v1/shopify/cart',
        params: {
          hash: services.site_.hash,
          subscriberId: 'sub-1',
          subscriberSecret: SUBSCRIBER_SECRET_OF_DOUBLE,
          pId: 42,
          pName: 'Ink pot',
          price: 12.99,
          pUrl: '/products/ink-pot',
          pImgUrl: `${location.protocol}//cdn.shop.test/ink.png`,
        },
      },
    ]);
  });

  it('not posted for a visitor who is no subscriber, nor when tracking is refused', async () => {
    for (const options of [{ subscriberId: undefined }, { tracking: false }]) {
      const { services, calls } = servicesDouble({ reply, ...options });
      startShop(services);
      submit('form[action="/cart/add"]');
      await vi.advanceTimersByTimeAsync(3000);
      expect(cartPosts(calls)).toEqual([]);
    }
  });
});

describe('cart add that leaves the page', () => {
  it('a plain form post navigates away: the next view reads /cart.js 2 s after the post, once', async () => {
    const leaving = servicesDouble({ reply });
    startShop(leaving.services);
    submit('form[action="/cart/add"]');
    await vi.advanceTimersByTimeAsync(500);
    // The shop's redirect: a new page view with the same sessionStorage, whose timers start afresh.
    const next = servicesDouble({ reply });
    next.session.data.set('pushkit_cart_posted', leaving.session.get('pushkit_cart_posted')!);
    startShop(next.services);
    await vi.advanceTimersByTimeAsync(1499);
    expect(next.calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(next.calls.filter((call) => call.kind === 'get').map((call) => call.url)).toEqual([location.origin + '/cart.js']);
    expect(next.session.get('pushkit_cart_posted')).toBeNull();
    expect(JSON.parse(next.local.get('wingifyEcomData-add_cart')!)).toMatchObject({ price: 12.99, cTotal: 25.98 });
  });
  it('a post whose navigation commits after 2 s: the old page does not read, and a cart without the posted line yet makes no event', async () => {
    const withInk = (url: string, params: QueryParams) =>
      url.endsWith('/cart.js') ? { ...CART, items: [{ ...CART.items[0], variant_id: 77 }] } : reply(url, params);
    const stale = (url: string, params: QueryParams) => (url.endsWith('/cart.js') ? { ...CART, items: [] } : reply(url, params));
    // a plain form post (nothing prevents it) once the shop's chunk runs: the page it leads to reads the cart
    const form = document.querySelector('form[action="/cart/add"]')!;
    form.replaceWith(form.cloneNode(true));
    document.querySelector('form[action="/cart/add"]')!.insertAdjacentHTML('afterbegin', '<input name="id" value="77">');
    const leaving = servicesDouble({ reply: withInk });
    startShop(leaving.services);
    submit('form[action="/cart/add"]');
    await vi.advanceTimersByTimeAsync(2500);
    expect(leaving.calls).toEqual([]);
    // posted before the chunk ran (the core kept the mark): this page reads, before the shop took the post
    const early = servicesDouble({ reply: stale });
    early.session.data.set('pushkit_cart_posted', leaving.session.get('pushkit_cart_posted')!);
    startShop(early.services);
    await vi.advanceTimersByTimeAsync(0);
    expect(early.calls.map((call) => call.url)).toEqual([location.origin + '/cart.js']);
    expect(early.local.get('wingifyEcomData-add_cart')).toBeNull();
    // the next page reads it, once
    const next = servicesDouble({ reply: withInk });
    next.session.data.set('pushkit_cart_posted', early.session.get('pushkit_cart_posted')!);
    startShop(next.services);
    await vi.advanceTimersByTimeAsync(0);
    expect(JSON.parse(next.local.get('wingifyEcomData-add_cart')!)).toMatchObject({ pName: 'Ink pot', quant: 2 });
    expect(next.session.get('pushkit_cart_posted')).toBeNull();
  });
  it('a failed add: the page after the post reads /cart.js once and finds no line; the views after it read nothing', async () => {
    document.querySelector('form[action="/cart/add"]')!.insertAdjacentHTML('afterbegin', '<input name="id" value="77">');
    const posting = servicesDouble({ reply });
    startShop(posting.services);
    submit('form[action="/cart/add"]');
    await vi.advanceTimersByTimeAsync(2000);
    // the posting page's read (its theme keeps the page) may precede the shop's answer: the mark stays
    expect(posting.calls.map((call) => call.url)).toEqual([location.origin + '/cart.js']);
    let mark = posting.session.get('pushkit_cart_posted');
    expect(mark).not.toBeNull();
    // pages started after the post (performance.now() counts from a page's start)
    const started = vi.spyOn(performance, 'now').mockReturnValue(100);
    const reads: number[] = [];
    try {
      for (const _view of [1, 2]) {
        const page = servicesDouble({ reply });
        if (mark) page.session.data.set('pushkit_cart_posted', mark);
        startShop(page.services);
        await vi.advanceTimersByTimeAsync(0);
        reads.push(page.calls.length);
        mark = page.session.get('pushkit_cart_posted');
      }
    } finally {
      started.mockRestore();
    }
    expect(reads).toEqual([1, 0]);
    expect(mark).toBeNull();
  });
});

describe('order page', () => {
  it('reads the order 3 s after a checkouts/{id} page loads, with every field', async () => {
    history.replaceState(null, '', '/12345/checkouts/1001/thank_you');
    const segments: ShopSegment[] = [{ sid: 'buyers', vn: 4, event: 'order', test: (data) => data.coupon === 'WELCOME' }];
    const { services, calls, local, emitted } = servicesDouble({ site: testSite({ shopSegments: segments }), reply });
    startShop(services);
    await vi.advanceTimersByTimeAsync(2999);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls[0]).toEqual({
      kind: 'get',
      url: 'https://sync.test/api/v1/shopify/getOrderDetails',
      params: { hash: services.site_.hash, orderId: '1001', subscriberId: 'sub-1', subscriberSecret: SUBSCRIBER_SECRET_OF_DOUBLE },
    });
    expect(JSON.parse(local.get('wingifyEcomData-order')!)).toEqual(ORDER);
    expect(emitted).toEqual(['ecom.order']);
    expect(local.get(segmentMarkerKey('buyers'))).toBe('4');
  });

  it("the provider's order list is `items`: it becomes the event's order list", async () => {
    history.replaceState(null, '', '/checkouts/1001');
    const { orders, ...rest } = ORDER;
    const { services, local } = servicesDouble({
      reply: () => ({ status: 'success', order: { orderId: '1001', ...rest, items: orders } }),
    });
    startShop(services);
    await vi.advanceTimersByTimeAsync(3000);
    expect(JSON.parse(local.get('wingifyEcomData-order')!)).toEqual(ORDER);
  });

  it('an unknown order (failed call) makes no event; other pages read no order', async () => {
    history.replaceState(null, '', '/checkouts/404');
    const failing = servicesDouble({ reply: () => new Error('404') });
    startShop(failing.services);
    await vi.advanceTimersByTimeAsync(3000);
    expect(failing.emitted).toEqual([]);
    expect(failing.local.get('wingifyEcomData-order')).toBeNull();

    history.replaceState(null, '', '/products/ink-pot');
    const plain = servicesDouble({ reply });
    startShop(plain.services);
    await vi.advanceTimersByTimeAsync(3000);
    expect(plain.calls).toEqual([]);
  });
});
