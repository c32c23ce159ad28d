// The shop automations and revenue on the real provider (startProvider, embedded database): product views posted as
// push.js posts them, product updates and orders as the shop posts them, and each message sent by the real sender to
// the fake push service, which the test decrypts. The provider's clock is a manual one: "2 hours after the view",
// "viewed within 30 days" and "no visit for 30 days" are moves of the clock, then a pass of the runner (runDue).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCampaigns } from '../../cli/commands/campaigns.ts';
import { parseConfigText } from '../../config/load-config.ts';
import type { HostedSite } from '../../server/sites.ts';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import { sendCampaign } from '../../server/campaigns/campaign-sender.ts';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.ts';
import type { Automation } from '../../contract/automations.ts';
import type { Campaign } from '../../contract/owner-api.ts';
import { CLICK_PARAM, type DeclarativePushMessage } from '../../contract/push-payload.ts';
import { HOUR, manualClock, MINUTE } from '../support/manual-clock.ts';
import { startProviderHarness, type ProviderHarness, type Subscribed } from '../support/provider-harness.ts';

const ORIGIN = 'https://nib-shop.com';
const DAY = 24 * HOUR;
const keys = generateVapidKeyPair();
const clock = manualClock();

function site(name: string, hash: string, automations: Record<string, unknown>): HostedSite {
  const loaded = parseConfigText(
    `${name}.json`,
    JSON.stringify({
      hash,
      companyName: 'Nibs',
      origin: ORIGIN,
      serverSyncUrl: 'https://push.nib-shop.com',
      vapidPublicKey: keys.publicKey,
      vapidSubject: 'mailto:owner@nib-shop.com',
      isShopifyConnectedAccount: true,
      conversionWindowHours: 24,
      automations,
    }),
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  return { name, hash, file: `${name}.json`, config: loaded.config, builtDir: '/nonexistent' };
}

const SHOP = 'nibs-shop-0001';
const QUIET = 'quiet-shop-0001';
let provider: ProviderHarness;
beforeAll(async () => {
  provider = await startProviderHarness({
    sites: [
      site('nibs', SHOP, {
        browseAbandonment: { enabled: true, delayMinutes: 120 },
        priceDrop: { enabled: true, days: 30 },
        backInStock: { enabled: true, days: 30 },
      }),
      // win-back scans every subscriber of its site: a site of its own keeps the other tests' subscribers out
      site('quiet', QUIET, { winBack: { enabled: true, days: 30, title: 'We miss you', body: 'New inks are in.' } }),
    ],
    vapid: keys,
    clock,
    automationPollMs: 0,
    rateLimit: false,
    pathPrefix: 'shop-auto',
  });
});
afterAll(() => provider?.close());

const subscribe = (hash = SHOP): Promise<Subscribed> => provider.subscribe({ hash, origin: ORIGIN });
const view = (subscriber: Subscribed, pId: string) =>
  provider.app.inject({
    method: 'POST',
    url: '/api/v1/shopify/view',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
    payload: new URLSearchParams({ hash: SHOP, subscriberId: subscriber.id, subscriberSecret: subscriber.secret, pId }).toString(),
  });
const cart = (subscriber: Subscribed, pId: string) =>
  provider.app.inject({
    method: 'POST',
    url: '/api/v1/shopify/cart',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
    payload: new URLSearchParams({
      hash: SHOP,
      subscriberId: subscriber.id,
      subscriberSecret: subscriber.secret,
      pId,
      pName: 'Pen',
    }).toString(),
  });
const NAMES: Record<string, string> = { pen: 'Gold nib pen', ink: 'Iron gall <ink>', nib: 'Spare nib' };
const product = (id: string, price: number, inStock = true, currency = 'EUR') => ({
  id,
  name: NAMES[id]!,
  url: `${ORIGIN}/products/${id}`,
  image: `${ORIGIN}/${id}.png`,
  price,
  currency,
  inStock,
});
const update = async (...products: ReturnType<typeof product>[]) => {
  const reply = await provider.owner('POST', '/products', { products });
  expect(reply.statusCode, reply.body).toBe(200);
  return reply.json() as { products: number; priceDrops: number; backInStock: number; scheduled: number };
};
const automation = async (kind: string, siteName = 'nibs'): Promise<Automation> =>
  (
    (await provider.owner('GET', `/api/v1/sites/${siteName}/automations/${kind}`, undefined, provider.ownerKeyOf(siteName))).json() as {
      automation: Automation;
    }
  ).automation;
/** The decrypted messages a subscriber received, with the landing page without its click token and UTM. */
const received = (subscriber: Subscribed, kind?: string) =>
  allReceived(subscriber).filter((message) => kind === undefined || message.utm === `automation-${kind}`);
const allReceived = (subscriber: Subscribed) =>
  provider.messages(subscriber.path).map((message: DeclarativePushMessage) => {
    const landing = new URL(message.notification.navigate);
    landing.searchParams.delete(CLICK_PARAM);
    const utm = landing.searchParams.get('utm_campaign');
    for (const key of ['utm_source', 'utm_medium', 'utm_campaign']) landing.searchParams.delete(key);
    const { title, body, image, data } = message.notification;
    return { title, body, image, url: landing.href, utm, campaignId: data?.campaignId, click: data?.click };
  });
const runDue = () => provider.automations.runDue();

describe('shop automations', () => {
  it('browse abandonment: one reminder N hours after a view no add-to-cart follows, once per product', async () => {
    await update(product('pen', 24.5));
    const texts = { de: { title: 'Noch Interesse an {product}?', body: '{product} kostet {price}: {url}' } };
    expect((await provider.owner('PATCH', '/automations/browseAbandonment', { texts })).statusCode).toBe(200);
    const browser = await subscribe();
    const buyer = await subscribe();
    const german = await provider.subscribe({ hash: SHOP, origin: ORIGIN, fields: { userLanguage: 'de-DE' } });
    expect((await view(browser, 'pen')).json()).toEqual({ status: 'success', recorded: true });
    await view(buyer, 'pen');
    await view(german, 'pen');
    clock.advance(30 * MINUTE);
    expect((await cart(buyer, 'pen')).statusCode).toBe(200);
    expect((await automation('browseAbandonment')).stats.scheduled).toBe(2);

    clock.advance(89 * MINUTE);
    await runDue();
    expect(received(browser)).toEqual([]);
    clock.advance(2 * MINUTE);
    await runDue();
    clock.advance(DAY);
    await runDue();
    expect(received(browser)).toEqual([
      {
        title: 'Still looking at Gold nib pen?',
        body: 'Gold nib pen is 24.50 EUR. Take another look.',
        image: `${ORIGIN}/pen.png`,
        url: `${ORIGIN}/products/pen`,
        utm: 'automation-browseAbandonment',
        campaignId: expect.any(String),
        click: expect.any(String),
      },
    ]);
    expect(received(buyer)).toEqual([]);
    // texts per language, with the same placeholders
    expect(received(german)).toMatchObject([
      { title: 'Noch Interesse an Gold nib pen?', body: `Gold nib pen kostet 24.50 EUR: ${ORIGIN}/products/pen` },
    ]);
    // the same product viewed again: never a second reminder about it
    await view(browser, 'pen');
    clock.advance(3 * HOUR);
    await runDue();
    expect(received(browser)).toHaveLength(1);
  });

  it('price drop and back in stock: once per change, to those who viewed or carted within N days; no change sends nothing', async () => {
    const first = await update(product('ink', 12), product('pen', 24.5));
    expect(first).toMatchObject({ products: 2, priceDrops: 0, backInStock: 0, scheduled: 0 });
    const viewer = await subscribe();
    const carter = await subscribe();
    const stale = await subscribe();
    const stranger = await subscribe();
    await view(stale, 'ink');
    clock.advance(31 * DAY);
    await view(viewer, 'ink');
    await cart(carter, 'ink');
    await view(stranger, 'pen');

    // the same update again, and a price rise: no change, nothing scheduled or sent
    expect(await update(product('ink', 12), product('pen', 24.5))).toMatchObject({ priceDrops: 0, backInStock: 0, scheduled: 0 });
    expect(await update(product('ink', 13))).toMatchObject({ priceDrops: 0, scheduled: 0 });
    // another currency is not a drop
    expect(await update(product('ink', 9, true, 'USD'))).toMatchObject({ priceDrops: 0, scheduled: 0 });
    expect(await update(product('ink', 13))).toMatchObject({ priceDrops: 0, scheduled: 0 });
    await runDue();
    for (const subscriber of [viewer, carter, stale, stranger]) expect(received(subscriber, 'priceDrop')).toEqual([]);

    expect(await update(product('ink', 9.9))).toMatchObject({ products: 1, priceDrops: 1, backInStock: 0, scheduled: 2 });
    // the shop posts the same product again (a retry): the change is not announced twice
    expect(await update(product('ink', 9.9))).toMatchObject({ priceDrops: 0, scheduled: 0 });
    await runDue();
    await runDue();
    const drop = {
      // the product's name is text, never markup the notification reads
      title: 'Iron gall <ink> is now 9.90 EUR',
      body: 'The price dropped from 13.00 EUR.',
      image: `${ORIGIN}/ink.png`,
      url: `${ORIGIN}/products/ink`,
      utm: 'automation-priceDrop',
    };
    expect(received(viewer, 'priceDrop')).toMatchObject([drop]);
    expect(received(carter, 'priceDrop')).toMatchObject([drop]);
    expect(received(stale, 'priceDrop')).toEqual([]);
    expect(received(stranger, 'priceDrop')).toEqual([]);

    // out of stock (and cheaper meanwhile): nothing; back in stock: one message each
    expect(await update(product('ink', 8, false))).toMatchObject({ priceDrops: 0, backInStock: 0, scheduled: 0 });
    expect(await update(product('ink', 8, true))).toMatchObject({ priceDrops: 0, backInStock: 1, scheduled: 2 });
    await runDue();
    expect(received(viewer, 'backInStock')).toMatchObject([
      { title: 'Iron gall <ink> is back in stock', body: 'Get it while it lasts: 8.00 EUR.' },
    ]);
    expect(received(carter, 'backInStock')).toHaveLength(1);
    expect(received(stale, 'backInStock')).toEqual([]);
    expect(received(stranger, 'backInStock')).toEqual([]);
    expect((await automation('priceDrop')).stats).toMatchObject({ sent: 2, delivered: 2 });
    expect((await automation('backInStock')).stats).toMatchObject({ sent: 2, delivered: 2 });

    // paused: a change schedules nothing
    await provider.owner('PATCH', '/automations/priceDrop', { enabled: false });
    expect(await update(product('ink', 7))).toMatchObject({ priceDrops: 1, scheduled: 0 });
    await provider.owner('PATCH', '/automations/priceDrop', { enabled: true });
  });

  it('win-back: once to each subscriber with no visit and no click for N days', async () => {
    // subscribes and clicks are stamped by the database's clock: the provider's starts at it again
    clock.set(Date.now());
    const gone = await subscribe(QUIET);
    const back = await subscribe(QUIET);
    clock.advance(20 * DAY);
    await runDue();
    expect(received(gone)).toEqual([]);
    clock.advance(11 * DAY);
    // a visit within the 30 days (a product view) keeps a subscriber out
    await provider.app.inject({
      method: 'POST',
      url: '/api/v1/shopify/view',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
      payload: new URLSearchParams({ hash: QUIET, subscriberId: back.id, subscriberSecret: back.secret, pId: 'pen' }).toString(),
    });
    await runDue();
    expect(received(gone)).toMatchObject([{ title: 'We miss you', body: 'New inks are in.', utm: 'automation-winBack' }]);
    expect(received(back)).toEqual([]);
    // months more without a visit: still one win-back
    clock.advance(90 * DAY);
    await runDue();
    expect(received(gone)).toHaveLength(1);
    expect(received(back)).toHaveLength(1);
    expect((await automation('winBack', 'quiet')).stats).toMatchObject({ sent: 2, delivered: 2 });
  });

  it('revenue: orders within the window after a click, summed per currency, per automation and per campaign', async () => {
    const clicker = await subscribe();
    const idle = await subscribe();
    await update(product('nib', 30));
    await view(clicker, 'nib');
    await view(idle, 'nib');
    expect(await update(product('nib', 20))).toMatchObject({ priceDrops: 1, scheduled: 2 });
    await runDue();
    const { campaignId: automated, click } = received(clicker, 'priceDrop').at(-1)!;
    const { campaignId: campaign } = await createCampaign(provider.db, provider.site, {
      title: 'Inks',
      body: 'New',
      ttl: 60,
      urgency: 'normal',
    });
    await sendCampaign(provider.db, provider.site, campaign, keys, {
      ca: provider.service.ca,
      pushServices: provider.service.pushServices,
    });
    const campaignClick = provider.messages(clicker.path).at(-1)!.notification.data!.click!;
    // an A/B test to the clicker alone: the test share is them, in variant A
    const created = await provider.owner('POST', '/campaigns', {
      title: 'Nibs',
      body: 'A or B',
      subscriberId: clicker.id,
      variants: [{}, { title: 'Nibs, B' }],
      testFraction: 0.95,
      winnerAfterMinutes: 60,
    });
    expect(created.statusCode, created.body).toBe(201);
    const abTest = (created.json() as { campaignId: string }).campaignId;
    await provider.campaigns.idle();
    const abClick = provider.messages(clicker.path).at(-1)!.notification.data!.click!;
    for (const [id, token] of [
      [automated, click],
      [campaign, campaignClick],
      [abTest, abClick],
    ]) {
      const reply = await provider.app.inject({
        method: 'POST',
        url: '/notificationEvent',
        headers: { origin: ORIGIN },
        payload: { hash: SHOP, campaignId: id, click: token, event: 'clicked' },
      });
      expect(reply.statusCode, reply.body).toBe(200);
    }
    const order = async (orderId: string, subscriber: Subscribed, total: number, currency?: string) => {
      const reply = await provider.owner('POST', '/api/v1/shopify/orders', {
        hash: SHOP,
        orderId,
        subscriberId: subscriber.id,
        order: { total, ...(currency ? { currency } : {}), items: [] },
      });
      expect(reply.statusCode, reply.body).toBe(201);
    };
    await order('r-1', clicker, 20, 'EUR');
    await order('r-2', clicker, 15.25, 'EUR');
    await order('r-3', clicker, 30, 'USD');
    // no currency: a conversion without revenue; another subscriber's order: none of these
    await order('r-4', clicker, 99);
    await order('r-5', idle, 50, 'EUR');
    // an order after the window counts for neither
    await order('r-6', clicker, 1000, 'EUR');
    await provider.db.query(`UPDATE shop_orders SET created_at = now() + interval '25 hours' WHERE order_id = 'r-6'`);

    // an automation counts the clicks that converted, a campaign the orders
    const stats = (await automation('priceDrop')).stats;
    expect(stats.conversions).toBe(1);
    expect(stats.revenue).toEqual([
      { currency: 'EUR', amount: 35.25 },
      { currency: 'USD', amount: 30 },
    ]);
    const reply = await provider.owner('GET', `/campaigns/${campaign}`);
    const figures = reply.json() as { campaign: Campaign };
    expect(figures.campaign.conversions).toBe(4);
    expect(figures.campaign.revenue).toEqual([
      { currency: 'EUR', amount: 35.25 },
      { currency: 'USD', amount: 30 },
    ]);
    const ab = ((await provider.owner('GET', `/campaigns/${abTest}`)).json() as { campaign: Campaign }).campaign;
    expect(ab.variants.map((variant) => variant.revenue)).toEqual([
      [
        { currency: 'EUR', amount: 35.25 },
        { currency: 'USD', amount: 30 },
      ],
      [],
    ]);
    // the CSV export: a revenue column per currency, the variant delivered to (A) with its test share's
    const csv = (await provider.owner('GET', `/campaigns/${abTest}/results.csv`)).body.split('\r\n');
    expect(csv[0]).toMatch(/,click rate,revenue EUR,revenue USD$/);
    expect(csv.filter((line) => line.startsWith('variant,'))).toEqual([expect.stringMatching(/^variant,A: Nibs,.*,35\.25,30$/)]);
    // push-kit campaigns show, through the running provider
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      expect(await runCampaigns('show', campaign, { site: 'nibs', provider: provider.provider!.url, key: provider.ownerKey })).toBe(0);
    } finally {
      log.mockRestore();
    }
    expect(lines).toContain('        4 conversions, revenue 35.25 EUR, 30.00 USD');
  });

  it("keeps a subscriber's latest 100 products only: views of made-up ids grow nothing beyond", async () => {
    const subscriber = await subscribe();
    for (let n = 0; n < 105; n += 1) {
      clock.advance(1000);
      expect((await view(subscriber, `made-up-${n}`)).statusCode).toBe(200);
    }
    const { rows } = await provider.db.query<{ product_id: string }>(
      'SELECT product_id FROM product_interest WHERE subscriber_id = $1 ORDER BY product_id',
      [subscriber.id],
    );
    expect(rows).toHaveLength(100);
    expect(rows.map((row) => row.product_id)).not.toContain('made-up-4');
    expect(rows.map((row) => row.product_id)).toContain('made-up-104');
  });

  it('refuses an order currency that is not ISO 4217, a negative total and a bad product update, naming the field', async () => {
    const bad = await provider.owner('POST', '/api/v1/shopify/orders', {
      hash: SHOP,
      orderId: 'bad-1',
      order: { total: 5, currency: 'EURO', items: [] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('currency');
    expect(bad.json().message).toContain('ISO 4217');
    const unknown = await provider.owner('POST', '/api/v1/shopify/orders', {
      hash: SHOP,
      orderId: 'bad-2',
      order: { total: 5, currency: 'ABC', items: [] },
    });
    expect(unknown.statusCode).toBe(400);
    const negative = await provider.owner('POST', '/api/v1/shopify/orders', {
      hash: SHOP,
      orderId: 'bad-3',
      order: { total: -1, currency: 'EUR', items: [] },
    });
    expect(negative.statusCode).toBe(400);
    expect(negative.json().message).toContain('total');
    const products = await provider.owner('POST', '/products', { products: [{ ...product('pen', 3), currency: 'eur' }] });
    expect(products.statusCode).toBe(400);
    expect(products.json().message).toContain('products.0.currency');
    expect((await provider.db.query(`SELECT 1 FROM shop_orders WHERE order_id LIKE 'bad-%'`)).rows).toEqual([]);
  });
});
