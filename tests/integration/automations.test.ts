// Automations on the real provider (startProvider): subscribers stored by the sync call, cart events posted as
// push.js posts them, orders as the shop posts them, the owner API, and messages received, decrypted and
// checked by the local fake push service. The provider's clock is a manual one: "5 minutes after the subscribe"
// and "4 hours after the add-to-cart" are a move of the clock, then a pass of the automation runner (runDue),
// which is what the provider's own timer does every few seconds. On the embedded database and on PostgreSQL,
// where two providers share the work.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../config/load-config.ts';
import type { HostedSite } from '../../server/sites.ts';
import { embeddedDatabaseDir, vapidKeyFile } from '../../server/state-paths.ts';
import { generateVapidKeyPair, writeVapidKeyFile, type VapidKeyPair } from '../../server/push/vapid-keys.ts';
import { AUTOMATION_KINDS, type Automation, type AutomationsReply, type SubscriberHealthReply } from '../../contract/automations.ts';
import type { AuditReply } from '../../contract/members.ts';
import type { Campaign } from '../../contract/owner-api.ts';
import { CLICK_PARAM, DECLARATIVE_PUSH_MAGIC, type DeclarativePushMessage } from '../../contract/push-payload.ts';
import {
  createSubscriberKeys,
  decryptPushBody,
  startFakePushService,
  verifyVapidAuthorization,
  type FakePushService,
  type RecordedPush,
} from '../support/fake-push-service.ts';
import { HOUR, manualClock, MINUTE, type ManualClock } from '../support/manual-clock.ts';
import { seedMigratedDatabase } from '../support/migrated-database.ts';
import { startProviderHarness, type ProviderHarness, type Subscribed } from '../support/provider-harness.ts';
import { tempDir } from '../support/server.ts';
import { createThrowawayDatabase } from '../support/throwaway-postgres.ts';
import { pruneCampaignClicks } from '../../server/campaigns/index.ts';

const postgresUrl = process.env.PUSHKIT_TEST_DATABASE_URL;
const ORIGIN = 'https://letters-shop.com';
const SUBJECT = 'mailto:owner@letters-shop.com';
const subscriberKeys = createSubscriberKeys();

let service: FakePushService;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  service = await startFakePushService();
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await service.close();
});

function site(name: string, hash: string, keys: VapidKeyPair, extra: Record<string, unknown> = {}): HostedSite {
  const loaded = parseConfigText(
    `${name}.json`,
    JSON.stringify({
      hash,
      companyName: 'Letters',
      origin: ORIGIN,
      serverSyncUrl: 'https://push.letters-shop.com',
      vapidPublicKey: keys.publicKey,
      vapidSubject: SUBJECT,
      isShopifyConnectedAccount: true,
      style: { iconUrl: `${ORIGIN}/icon.png` },
      automations: {
        welcome: { enabled: true, delayMinutes: 5, url: `${ORIGIN}/welcome` },
        abandonedCart: { enabled: true, delayMinutes: 240 },
      },
      ...extra,
    }),
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  return { name, hash, file: `${name}.json`, config: loaded.config, builtDir: '/nonexistent' };
}

interface Project {
  stateDir: string;
  sites: HostedSite[];
  keys: VapidKeyPair;
}

async function newProject(letters: Record<string, unknown> = {}): Promise<Project> {
  const dir = await tempDir('pushkit-automations-');
  cleanups.push(dir.remove);
  const keys = generateVapidKeyPair();
  const sites = [site('letters', 'letters-auto-01', keys, letters), site('other', 'other-auto-01', keys, { conversionWindowHours: 240 })];
  await mkdir(join(dir.path, 'keys'), { recursive: true });
  for (const hosted of sites) await writeVapidKeyFile(vapidKeyFile(dir.path, hosted.name), keys);
  return { stateDir: dir.path, sites, keys };
}

async function start(project: Project, clock: ManualClock, database?: string): Promise<ProviderHarness> {
  // a project's embedded database starts as the migrated copy (a restart opens what the first start left)
  if (!database) await seedMigratedDatabase(embeddedDatabaseDir(project.stateDir));
  const provider = await startProviderHarness({
    sites: project.sites,
    vapid: project.keys,
    stateDir: project.stateDir,
    database,
    service,
    keys: subscriberKeys,
    clock,
    automationPollMs: 0,
    rateLimit: false,
    pathPrefix: 'auto',
  });
  cleanups.push(() => provider.close());
  return provider;
}

async function subscribe(provider: ProviderHarness, hash = 'letters-auto-01'): Promise<Subscribed> {
  return provider.subscribe({ hash, origin: ORIGIN });
}

function postCart(provider: ProviderHarness, fields: Record<string, string>, origin = ORIGIN) {
  return provider.app.inject({
    method: 'POST',
    url: '/api/v1/shopify/cart',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    payload: new URLSearchParams({ hash: 'letters-auto-01', ...fields }).toString(),
  });
}

function owner(provider: ProviderHarness, method: 'GET' | 'PATCH' | 'POST', path: string, body?: unknown, key?: string) {
  return provider.app.inject({
    method,
    url: `/api/v1/sites/${path}`,
    headers: { authorization: `Bearer ${key ?? provider.ownerKeyOf('letters')}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

async function automation(provider: ProviderHarness, kind: string): Promise<Automation> {
  const reply = await owner(provider, 'GET', `letters/automations/${kind}`);
  expect(reply.statusCode, reply.body).toBe(200);
  return (reply.json() as { automation: Automation }).automation;
}

const pushesTo = (path: string): RecordedPush[] => service.requests.filter((request) => request.path === path);
const messageOf = (push: RecordedPush) => JSON.parse(decryptPushBody(push.body, subscriberKeys).toString('utf8')) as DeclarativePushMessage;
/** What an automated push shows and where its click lands: it is a declarative message, as campaigns are. */
function payloadOf(push: RecordedPush) {
  const message = messageOf(push);
  expect(message.web_push).toBe(DECLARATIVE_PUSH_MAGIC);
  const { title, body, icon, image, tag, navigate, data } = message.notification;
  const landing = new URL(navigate);
  // every page a click opens carries the delivery's click token, the one the worker reports with
  expect(landing.searchParams.get(CLICK_PARAM)).toBe(data?.click);
  landing.searchParams.delete(CLICK_PARAM);
  // and the UTM parameters of its automation (docs/languages.md), taken off for the checks of the page itself
  expect(landing.searchParams.get('utm_source')).toBe('push-kit');
  expect(landing.searchParams.get('utm_medium')).toBe('push');
  expect(landing.searchParams.get('utm_campaign')).toMatch(/^automation-(welcome|abandonedCart)$/);
  for (const key of ['utm_source', 'utm_medium', 'utm_campaign']) landing.searchParams.delete(key);
  return { title, body, icon, image, tag, url: landing.href, campaignId: data?.campaignId, click: data?.click };
}

function automationTests(label: string, database: () => Promise<string | undefined>, skip = false) {
  describe.skipIf(skip)(`automations (${label})`, () => {
    let project: Project;
    let clock: ManualClock;
    let provider: ProviderHarness;
    let databaseUrl: string | undefined;

    beforeAll(async () => {
      project = await newProject();
      clock = manualClock();
      databaseUrl = await database();
      provider = await start(project, clock, databaseUrl);
    });

    it('a subscribe schedules exactly one welcome message, sent once when its delay has passed', async () => {
      const subscriber = await subscribe(provider);
      // the same subscription inserted again (a retried insert) is the same subscriber: no second welcome
      const again = await provider.app.inject({
        method: 'POST',
        url: '/syncSubscriptionAction.php',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
        payload: new URLSearchParams({
          hash: 'letters-auto-01',
          action: 'insert-failed',
          subscriberId: subscriber.id,
          subscriberSecret: subscriber.secret,
          subscription: JSON.stringify({
            endpoint: `${service.origin}${subscriber.path}`,
            keys: { p256dh: subscriberKeys.p256dh, auth: subscriberKeys.auth },
          }),
        }).toString(),
      });
      expect(again.json()).toMatchObject({ status: 'success', subscriberId: subscriber.id });
      expect((await automation(provider, 'welcome')).stats).toMatchObject({ scheduled: 1, sent: 0 });

      clock.advance(4 * MINUTE);
      await provider.automations.runDue();
      expect(pushesTo(subscriber.path)).toHaveLength(0);

      clock.advance(MINUTE + 1000);
      await provider.automations.runDue();
      clock.advance(HOUR);
      await provider.automations.runDue();

      const pushes = pushesTo(subscriber.path);
      expect(pushes).toHaveLength(1);
      expect(payloadOf(pushes[0]!)).toMatchObject({
        title: 'Welcome!',
        body: "Thanks for subscribing. We'll let you know when something new comes up.",
        url: `${ORIGIN}/welcome`,
        icon: `${ORIGIN}/icon.png`,
      });
      // The subject the config names, one Apple's push service accepts.
      expect(verifyVapidAuthorization(pushes[0]!.headers.authorization as string, project.keys.publicKey).claims.sub).toBe(SUBJECT);
      expect((await automation(provider, 'welcome')).stats).toMatchObject({ scheduled: 0, sent: 1, delivered: 1 });
    });

    it('an add-to-cart with no order sends one reminder after the delay, naming the newest product, with a topic', async () => {
      const subscriber = await subscribe(provider);
      const first = await postCart(provider, {
        subscriberId: subscriber.id,
        subscriberSecret: subscriber.secret,
        pId: '7001',
        pName: 'Gold nib pen',
        price: '24.5',
        pUrl: '/products/gold-nib-pen.html',
      });
      expect(first.json()).toEqual({ status: 'success', scheduled: true });
      clock.advance(HOUR);
      // a second add-to-cart replaces the waiting reminder and starts the delay again
      await postCart(provider, {
        subscriberId: subscriber.id,
        subscriberSecret: subscriber.secret,
        pId: '7002',
        pName: 'Walnut ink',
        price: '12',
        pUrl: `${ORIGIN}/products/walnut-ink.html`,
        pImgUrl: 'https://cdn.letters-shop.com/ink.png',
      });
      expect((await automation(provider, 'abandonedCart')).stats.scheduled).toBe(1);

      clock.advance(3 * HOUR + 30 * MINUTE);
      await provider.automations.runDue();
      expect(pushesTo(subscriber.path).filter((push) => payloadOf(push).tag === 'pushkit-cart-reminder')).toHaveLength(0);

      clock.advance(31 * MINUTE);
      await provider.automations.runDue();
      clock.advance(10 * HOUR);
      await provider.automations.runDue();
      const reminders = pushesTo(subscriber.path).filter((push) => payloadOf(push).tag === 'pushkit-cart-reminder');
      expect(reminders).toHaveLength(1);
      expect(reminders[0]!.headers.topic).toBe('pushkit-cart-reminder');
      expect(payloadOf(reminders[0]!)).toMatchObject({
        title: 'Still thinking about Walnut ink?',
        body: 'Walnut ink (12.00) is waiting in your cart.',
        url: `${ORIGIN}/products/walnut-ink.html`,
        image: 'https://cdn.letters-shop.com/ink.png',
      });
    });

    it("an order in time cancels the reminder (posted by the shop, or claimed by the buyer's order page)", async () => {
      const posted = await subscribe(provider);
      const claimed = await subscribe(provider);
      for (const subscriber of [posted, claimed]) {
        await postCart(provider, {
          subscriberId: subscriber.id,
          subscriberSecret: subscriber.secret,
          pName: 'Gold nib pen',
          price: '24.5',
        });
      }
      clock.advance(2 * HOUR);
      const order = (orderId: string, subscriberId?: string) =>
        provider.app.inject({
          method: 'POST',
          url: '/api/v1/shopify/orders',
          headers: { authorization: `Bearer ${provider.ownerKeyOf('letters')}` },
          payload: {
            hash: 'letters-auto-01',
            orderId,
            order: { total: 24.5, items: [{ pId: '7001', pName: 'Gold nib pen', pPrice: 24.5, pQuant: 1 }] },
            ...(subscriberId ? { subscriberId } : {}),
          },
        });
      expect((await order('order-posted', posted.id)).statusCode).toBe(201);
      const unnamed = await order('order-claimed');
      expect(unnamed.statusCode).toBe(201);
      // the buyer's order page brings the order's read token
      const read = await provider.app.inject({
        method: 'GET',
        url: `/api/v1/shopify/getOrderDetails?hash=letters-auto-01&orderId=order-claimed&subscriberId=${claimed.id}&subscriberSecret=${claimed.secret}&readToken=${unnamed.json().readToken}`,
        headers: { origin: ORIGIN },
      });
      expect(read.json()).toMatchObject({ status: 'success', order: { orderId: 'order-claimed', total: 24.5 } });

      clock.advance(5 * HOUR);
      await provider.automations.runDue();
      for (const subscriber of [posted, claimed]) {
        expect(pushesTo(subscriber.path).filter((push) => payloadOf(push).tag === 'pushkit-cart-reminder')).toHaveLength(0);
      }
    });

    it('a paused automation sends nothing: what it had scheduled is withdrawn, nothing new is scheduled', async () => {
      const before = await subscribe(provider);
      const paused = await owner(provider, 'PATCH', 'letters/automations/welcome', { enabled: false });
      expect(paused.statusCode, paused.body).toBe(200);
      expect(paused.json()).toMatchObject({ automation: { kind: 'welcome', enabled: false, changed: ['enabled'] } });
      const during = await subscribe(provider);
      clock.advance(HOUR);
      await provider.automations.runDue();
      expect(pushesTo(before.path)).toHaveLength(0);
      expect(pushesTo(during.path)).toHaveLength(0);
      expect((await automation(provider, 'welcome')).stats.scheduled).toBe(0);

      // resumed: the next subscriber is welcomed again
      await owner(provider, 'PATCH', 'letters/automations/welcome', { enabled: true, delayMinutes: 1, title: 'Hello again' });
      const after = await subscribe(provider);
      clock.advance(2 * MINUTE);
      await provider.automations.runDue();
      expect(pushesTo(after.path).map((push) => payloadOf(push).title)).toEqual(['Hello again']);
      expect(pushesTo(before.path)).toHaveLength(0);
      // the owner's pause and resume are in the audit log, saying what they did; the automated sends are not
      const audit = (await owner(provider, 'GET', 'letters/audit?limit=2')).json() as AuditReply;
      expect(audit.entries.map(({ action, target }) => ({ action, target }))).toEqual([
        { action: 'automation.update', target: 'welcome: resumed; delayMinutes, title changed' },
        { action: 'automation.update', target: 'welcome: paused (1 scheduled message withdrawn)' },
      ]);
    });

    it('clicks and conversions: an order within the window after a click counts, one after it does not', async () => {
      await owner(provider, 'PATCH', 'letters/automations/welcome', { conversionWindowHours: 2 });
      const initial = (await automation(provider, 'welcome')).stats;
      const buyer = await subscribe(provider);
      const late = await subscribe(provider);
      clock.advance(10 * MINUTE);
      await provider.automations.runDue();
      // the buyer's worker reports with the message's click token; the late one's with its subscription only
      for (const subscriber of [buyer, late]) {
        const { campaignId, click } = payloadOf(pushesTo(subscriber.path)[0]!);
        const report = await provider.app.inject({
          method: 'POST',
          url: '/notificationEvent',
          headers: { origin: ORIGIN },
          payload:
            subscriber === buyer
              ? { hash: 'letters-auto-01', campaignId, click, event: 'clicked' }
              : { hash: 'letters-auto-01', campaignId, endpoint: `${service.origin}${subscriber.path}`, event: 'clicked' },
        });
        expect(report.statusCode, report.body).toBe(200);
      }
      await provider.db.query(`UPDATE events SET created_at = now() - interval '3 hours' WHERE subscriber_id = $1 AND kind = 'clicked'`, [
        late.id,
      ]);
      for (const [orderId, subscriber] of [
        ['conv-1', buyer],
        ['conv-2', late],
      ] as const) {
        await provider.app.inject({
          method: 'POST',
          url: '/api/v1/shopify/orders',
          headers: { authorization: `Bearer ${provider.ownerKeyOf('letters')}` },
          payload: { hash: 'letters-auto-01', orderId, order: { total: 5, items: [] }, subscriberId: subscriber.id },
        });
      }
      const after = (await automation(provider, 'welcome')).stats;
      expect(after.clicked - initial.clicked).toBe(2);
      expect(after.conversions - initial.conversions).toBe(1);
    });

    it('its figures stay when the event retention prunes the clicks, with its own window, by a provider hosting its site', async () => {
      expect((await owner(provider, 'PATCH', 'letters/automations/abandonedCart', { conversionWindowHours: 3 })).statusCode).toBe(200);
      const initial = (await automation(provider, 'abandonedCart')).stats;
      // three subscribers each click two cart reminders and then order once
      const buyers = [await subscribe(provider), await subscribe(provider), await subscribe(provider)];
      const clicks: string[][] = buyers.map(() => []);
      for (let round = 0; round < 2; round += 1) {
        for (const buyer of buyers) await postCart(provider, { subscriberId: buyer.id, subscriberSecret: buyer.secret, pName: 'Ink' });
        clock.advance(5 * HOUR);
        await provider.automations.runDue();
        for (const [index, buyer] of buyers.entries()) {
          const { campaignId, click } = payloadOf(pushesTo(buyer.path).at(-1)!);
          const payload = { hash: 'letters-auto-01', campaignId, click, event: 'clicked' };
          const reported = await provider.app.inject({ method: 'POST', url: '/notificationEvent', headers: { origin: ORIGIN }, payload });
          expect(reported.statusCode, reported.body).toBe(200);
          clicks[index]!.push(String(campaignId));
        }
      }
      const orders = [
        { total: 10, currency: 'EUR' },
        { total: 7, currency: 'USD' },
        { total: 5, currency: 'EUR' },
      ];
      for (const [index, order] of orders.entries()) {
        const placed = await provider.app.inject({
          method: 'POST',
          url: '/api/v1/shopify/orders',
          headers: { authorization: `Bearer ${provider.ownerKeyOf('letters')}` },
          payload: { hash: 'letters-auto-01', orderId: `kept-${index}`, order: { ...order, items: [] }, subscriberId: buyers[index]!.id },
        });
        expect(placed.statusCode, placed.body).toBe(201);
      }
      // the orders an hour ago; the clicks 170 and 120 minutes before the first, 110 and 100 before the second (each
      // order the conversion of both), 300 and 240 before the third (outside the 3 hours, inside the default 24)
      const minutes = [
        [230, 180],
        [170, 160],
        [360, 300],
      ];
      const at = `UPDATE events SET created_at = now() - make_interval(mins => $2) WHERE campaign_id = $1 AND kind = 'clicked'`;
      for (const [index, campaigns] of clicks.entries()) {
        for (const [round, campaignId] of campaigns.entries()) await provider.db.query(at, [campaignId, minutes[index]![round]]);
      }
      await provider.db.query(`UPDATE shop_orders SET created_at = now() - interval '1 hour' WHERE order_id LIKE 'kept-%'`);
      const figures = async () => Promise.all(['welcome', 'abandonedCart'].map(async (kind) => (await automation(provider, kind)).stats));
      const before = await figures();
      expect(before[1]!.clicked - initial.clicked).toBe(6);
      expect(before[1]!.conversions - initial.conversions).toBe(4);
      expect(before[1]!.revenue).toEqual([
        { currency: 'EUR', amount: 10 },
        { currency: 'USD', amount: 7 },
      ]);
      // the event retention takes the first buyer's first click: their order is still their second click's
      const aged = `UPDATE events SET created_at = created_at - make_interval(mins => $2)
                    WHERE site_hash = 'letters-auto-01' AND ($1::text IS NULL OR subscriber_id = $1)`;
      await provider.db.query(aged, [buyers[0]!.id, 180 * 24 * 60 - 200]);
      await provider.db.query(
        `UPDATE shop_orders SET created_at = created_at - interval '180 days' + interval '200 minutes' WHERE order_id = 'kept-0'`,
      );
      expect(
        await pruneCampaignClicks(provider.db, 180, {
          sites: { 'letters-auto-01': 72 },
          automations: { 'letters-auto-01': { abandonedCart: 3 } },
        }),
      ).toBe(1);
      expect(await figures()).toEqual(before);
      // and a campaign of the other site (its window 240 hours) clicked 200 days ago, an order 100 hours after it
      const otherBuyer = await subscribe(provider, 'other-auto-01');
      const { rows } = await provider.db.query<{ id: string }>(
        `INSERT INTO campaigns (site_hash, title, body, ttl, urgency, status) VALUES ('other-auto-01', 'Old', 'Clicked', 60, 'normal', 'done')
         RETURNING id`,
      );
      const otherCampaign = String(rows[0]!.id);
      await provider.db.query(
        `INSERT INTO events (site_hash, subscriber_id, campaign_id, kind, created_at)
         VALUES ('other-auto-01', $1, $2, 'clicked', now() - interval '200 days')`,
        [otherBuyer.id, otherCampaign],
      );
      const placed = await provider.app.inject({
        method: 'POST',
        url: '/api/v1/shopify/orders',
        headers: { authorization: `Bearer ${provider.ownerKeyOf('other')}` },
        payload: {
          hash: 'other-auto-01',
          orderId: 'other-late',
          order: { total: 25, currency: 'EUR', items: [] },
          subscriberId: otherBuyer.id,
        },
      });
      expect(placed.statusCode, placed.body).toBe(201);
      await provider.db.query(
        `UPDATE shop_orders SET created_at = now() - interval '200 days' + interval '100 hours' WHERE order_id = 'other-late'`,
      );
      const otherFigures = async () => {
        const reply = await owner(provider, 'GET', `other/campaigns/${otherCampaign}`, undefined, provider.ownerKeyOf('other'));
        expect(reply.statusCode, reply.body).toBe(200);
        const { clicked, conversions, revenue } = (reply.json() as { campaign: Campaign }).campaign;
        return { clicked, conversions, revenue };
      };
      const otherBefore = await otherFigures();
      expect(otherBefore).toEqual({ clicked: 1, conversions: 1, revenue: [{ currency: 'EUR', amount: 25 }] });
      // a year on, a provider hosting letters alone starts on the same database: its prune (its close waits for it)
      // takes letters' clicks with the windows the owner set, and leaves the other site's to a provider hosting it
      await provider.db.query(aged, [null, 365 * 24 * 60]);
      await provider.db.query(`UPDATE shop_orders SET created_at = created_at - interval '365 days' WHERE site_hash = 'letters-auto-01'`);
      await provider.stop();
      const lettersOnly = await startProviderHarness({
        sites: [project.sites[0]!],
        vapid: project.keys,
        stateDir: project.stateDir,
        database: databaseUrl,
        service,
        keys: subscriberKeys,
        clock,
        automationPollMs: 0,
        rateLimit: false,
      });
      await lettersOnly.close();
      await provider.start();
      // which prunes it with that site's window: the figures of both stay
      const left = `SELECT 1 FROM events WHERE kind = 'clicked' AND (site_hash = 'letters-auto-01' OR campaign_id = $1)`;
      while ((await provider.db.query(left, [otherCampaign])).rows.length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await figures()).toEqual(before);
      expect(await otherFigures()).toEqual(otherBefore);
    });
  });
}

automationTests('embedded database', async () => undefined);
automationTests(
  'PostgreSQL',
  async () => {
    const database = await createThrowawayDatabase(postgresUrl!, 'pushkit_automations');
    cleanups.push(database.drop);
    return database.url;
  },
  !postgresUrl,
);

describe('automations across processes and restarts', () => {
  it.skipIf(!postgresUrl)('two providers on one PostgreSQL send each automated message once', async () => {
    const database = await createThrowawayDatabase(postgresUrl!, 'pushkit_automations_two');
    cleanups.push(database.drop);
    const project = await newProject();
    const clock = manualClock();
    const first = await start(project, clock, database.url);
    const second = await start(project, clock, database.url);
    const subscribers: Subscribed[] = [];
    for (let i = 0; i < 30; i += 1) subscribers.push(await subscribe(i % 2 ? first : second));
    for (const [i, subscriber] of subscribers.entries()) {
      await postCart(i % 2 ? second : first, {
        subscriberId: subscriber.id,
        subscriberSecret: subscriber.secret,
        pName: `Pen ${i}`,
        price: '3',
      });
    }
    clock.advance(5 * HOUR);
    // both runners at once, twice: every due message is claimed by one of them only
    await Promise.all([first.automations.runDue(), second.automations.runDue(), first.automations.runDue(), second.automations.runDue()]);
    for (const subscriber of subscribers) {
      const titles = pushesTo(subscriber.path).map((push) => payloadOf(push).title);
      expect(
        titles.filter((title) => title === 'Welcome!'),
        subscriber.path,
      ).toHaveLength(1);
      expect(
        titles.filter((title) => title?.startsWith('Still thinking about')),
        subscriber.path,
      ).toHaveLength(1);
    }
  });

  it('due work survives a restart: a welcome scheduled before the provider stopped is sent by the next one', async () => {
    const project = await newProject();
    const clock = manualClock();
    const before = await start(project, clock);
    const subscriber = await subscribe(before);
    await before.close();
    const after = await start(project, clock);
    clock.advance(6 * MINUTE);
    await after.automations.runDue();
    expect(pushesTo(subscriber.path).map((push) => payloadOf(push).title)).toEqual(['Welcome!']);
  });
});

describe('the owner API of automations refuses', () => {
  let provider: ProviderHarness;
  beforeAll(async () => {
    provider = await start(await newProject(), manualClock());
  });

  it("another site's key: it can neither read nor change this site's automations", async () => {
    const otherKey = provider.ownerKeyOf('other');
    for (const [method, path, body] of [
      ['GET', 'letters/automations', undefined],
      ['GET', 'letters/automations/welcome', undefined],
      ['PATCH', 'letters/automations/welcome', { enabled: false }],
      ['GET', 'letters/subscriber-health', undefined],
    ] as const) {
      const reply = await owner(provider, method, path, body, otherKey);
      expect(reply.statusCode, `${method} ${path}`).toBe(401);
      expect(reply.json()).toMatchObject({
        status: 'failure',
        code: 'E_OWNER_KEY',
        message: 'authorization: wrong owner key for site letters',
      });
    }
    const noKey = await provider.app.inject({ method: 'GET', url: '/api/v1/sites/letters/automations' });
    expect(noKey.statusCode).toBe(401);
    expect((await automation(provider, 'welcome')).enabled).toBe(true);
    // its own key opens its own site only
    const own = await owner(provider, 'GET', 'other/automations', undefined, otherKey);
    expect((own.json() as AutomationsReply).automations.map((entry) => entry.kind)).toEqual([...AUTOMATION_KINDS]);
  });

  it('bad input, naming what is wrong', async () => {
    const cases: [string, unknown, string][] = [
      ['letters/automations/birthday', { enabled: false }, `kind: must be one of ${AUTOMATION_KINDS.join(', ')}`],
      ['letters/automations/welcome', {}, 'body: give at least one field to change'],
      ['letters/automations/welcome', { delayMinutes: -1 }, 'delayMinutes: must be 0 to 43200 minutes'],
      ['letters/automations/welcome', { delayMinutes: 2.5 }, 'delayMinutes: must be a whole number of minutes'],
      ['letters/automations/welcome', { enabled: 'yes' }, 'enabled: must be true or false'],
      ['letters/automations/welcome', { title: '   ' }, 'title: must not be empty'],
      ['letters/automations/welcome', { url: 'javascript:alert(1)' }, 'url: must be an absolute http(s) URL'],
      ['letters/automations/welcome', { conversionWindowHours: 0 }, 'conversionWindowHours: must be 1 to 720 hours'],
      ['letters/automations/welcome', { paused: true }, 'paused: is not a parameter of this call'],
    ];
    for (const [path, body, message] of cases) {
      const reply = await owner(provider, 'PATCH', path, body);
      expect(reply.statusCode, JSON.stringify(body)).toBe(400);
      expect((reply.json() as { message: string }).message).toBe(message);
    }
    const health = await owner(provider, 'GET', 'letters/subscriber-health?deliveries=0');
    expect(health.statusCode).toBe(400);
    expect((health.json() as { message: string }).message).toBe('deliveries: must be 1 to 20');
  });

  it('a cart event without the subscriber secret, with a wrong one, from another origin, or with bad fields', async () => {
    const subscriber = await subscribe(provider);
    const victim = await subscribe(provider);
    const cases: [Record<string, string>, string | undefined, number, string][] = [
      [{ subscriberId: victim.id, pName: 'Spam' }, undefined, 403, 'E_SUBSCRIBER_SECRET_MISSING'],
      // a subscriber's own secret does not schedule a message to another subscriber
      [{ subscriberId: victim.id, subscriberSecret: subscriber.secret, pName: 'Spam' }, undefined, 403, 'E_SUBSCRIBER_SECRET_WRONG'],
      [
        { subscriberId: subscriber.id, subscriberSecret: subscriber.secret, pName: 'Pen' },
        'https://evil.example',
        403,
        'E_ORIGIN_FORBIDDEN',
      ],
      [{ subscriberId: subscriber.id, subscriberSecret: subscriber.secret, pName: ' ' }, undefined, 400, 'E_PARAM_INVALID'],
      [{ subscriberId: subscriber.id, subscriberSecret: subscriber.secret, pName: 'Pen', price: '1e9' }, undefined, 400, 'E_PARAM_INVALID'],
      [
        { subscriberId: subscriber.id, subscriberSecret: subscriber.secret, pName: 'Pen', pImgUrl: 'javascript:alert(1)' },
        undefined,
        400,
        'E_PARAM_INVALID',
      ],
    ];
    for (const [fields, origin, status, code] of cases) {
      const reply = await postCart(provider, fields, origin);
      expect(reply.statusCode, JSON.stringify(fields)).toBe(status);
      expect(reply.json()).toMatchObject({ status: 'failure', code });
    }
    expect((await automation(provider, 'abandonedCart')).stats.scheduled).toBe(0);
  });

  it('a product page on another origin: the reminder opens the site instead', async () => {
    const clock = manualClock();
    const own = await start(await newProject(), clock);
    const subscriber = await subscribe(own);
    await postCart(own, {
      subscriberId: subscriber.id,
      subscriberSecret: subscriber.secret,
      pName: 'Pen',
      price: '1',
      pUrl: 'https://evil.example/phish',
    });
    clock.advance(5 * HOUR);
    await own.automations.runDue();
    const reminder = pushesTo(subscriber.path)
      .map(payloadOf)
      .find((payload) => payload.tag === 'pushkit-cart-reminder')!;
    expect(reminder.url).toBe(`${ORIGIN}/`);
  });
});

describe('a privacy deletion', () => {
  it("removes the subscriber's automated messages, which name what they put in their cart", async () => {
    const provider = await start(await newProject(), manualClock());
    const subscriber = await subscribe(provider);
    await postCart(provider, { subscriberId: subscriber.id, subscriberSecret: subscriber.secret, pName: 'Secret gift', price: '9' });
    const before = await owner(provider, 'GET', 'letters/automations');
    expect((before.json() as AutomationsReply).automations.map((entry) => entry.stats.scheduled)).toEqual([1, 1, 0, 0, 0, 0]);
    const reply = await provider.app.inject({
      method: 'DELETE',
      url: `/api/v1/sites/letters/subscribers/${subscriber.id}`,
      headers: { authorization: `Bearer ${provider.ownerKeyOf('letters')}` },
    });
    expect(reply.statusCode).toBe(200);
    const left = await provider.db.query(`SELECT 1 FROM campaigns WHERE subscriber_id = $1 OR title LIKE '%Secret gift%'`, [subscriber.id]);
    expect(left.rows).toEqual([]);
  });
});

describe("the site's campaign guardrails", () => {
  const utcTime = (ms: number) => new Date(ms).toISOString().slice(11, 16);

  it('hold a welcome message due in quiet hours until they end, then send it once', async () => {
    const clock = manualClock();
    // Quiet from an hour ago to two hours from now on the subscriber's clock (UTC: the sync names no zone).
    const quietHours = { start: utcTime(clock() - HOUR), end: utcTime(clock() + 2 * HOUR) };
    const provider = await start(await newProject({ campaignGuardrails: { quietHours } }), clock);
    const subscriber = await subscribe(provider);

    clock.advance(6 * MINUTE);
    await provider.automations.runDue();
    expect(pushesTo(subscriber.path)).toHaveLength(0);
    const held = await provider.db.query<{ next_attempt_at: Date; status: string }>(
      `SELECT d.next_attempt_at, d.status FROM deliveries d JOIN campaigns c ON c.id = d.campaign_id
       WHERE c.automation = 'welcome' AND d.subscriber_id = $1`,
      [subscriber.id],
    );
    expect(held.rows).toHaveLength(1);
    expect(held.rows[0]!.status).toBe('pending');
    expect(utcTime(new Date(held.rows[0]!.next_attempt_at).getTime())).toBe(quietHours.end);

    clock.advance(2 * HOUR);
    await provider.automations.runDue();
    await provider.automations.runDue();
    expect(pushesTo(subscriber.path)).toHaveLength(1);
    expect(payloadOf(pushesTo(subscriber.path)[0]!).title).toBe('Welcome!');
  });

  it('skip a capped subscriber and count the message as capped', async () => {
    const clock = manualClock();
    const provider = await start(await newProject({ campaignGuardrails: { frequencyCap: { max: 1, per: 'day' } } }), clock);
    const subscriber = await subscribe(provider);
    const created = await owner(provider, 'POST', 'letters/campaigns', { title: 'News', body: 'Fresh ink' });
    expect(created.statusCode, created.body).toBe(201);
    await provider.campaigns.idle();
    expect(pushesTo(subscriber.path)).toHaveLength(1);

    clock.advance(6 * MINUTE);
    await provider.automations.runDue();
    expect(pushesTo(subscriber.path)).toHaveLength(1);
    const welcome = await provider.db.query<{ status: string }>(
      `SELECT d.status FROM deliveries d JOIN campaigns c ON c.id = d.campaign_id WHERE c.automation = 'welcome' AND d.subscriber_id = $1`,
      [subscriber.id],
    );
    expect(welcome.rows.map((row) => row.status)).toEqual(['capped']);
  });
});

describe('subscription health', () => {
  it('counts subscribers whose last deliveries were never shown, and expiries per day', async () => {
    const provider = await start(await newProject(), manualClock());
    await owner(provider, 'PATCH', 'letters/automations/welcome', { enabled: false });
    const silent = await subscribe(provider);
    const showing = await subscribe(provider);
    const gone = await subscribe(provider);
    service.answer(gone.path, { status: 410 });
    for (let i = 0; i < 3; i += 1) {
      const created = await owner(provider, 'POST', 'letters/campaigns', { title: `News ${i}`, body: 'Fresh ink' });
      expect(created.statusCode, created.body).toBe(201);
      await provider.campaigns.idle();
    }
    // The owner's campaigns go out as declarative messages: the campaign id is in notification.data.
    const lastToShowing = messageOf(pushesTo(showing.path).at(-1)!).notification.data!;
    await provider.app.inject({
      method: 'POST',
      url: '/notificationEvent',
      headers: { origin: ORIGIN },
      payload: {
        hash: 'letters-auto-01',
        campaignId: lastToShowing.campaignId,
        endpoint: `${service.origin}${showing.path}`,
        event: 'shown',
      },
    });
    const reply = await owner(provider, 'GET', 'letters/subscriber-health?days=7&deliveries=3');
    const health = reply.json() as SubscriberHealthReply;
    expect(health).toMatchObject({ status: 'success', atRisk: 1, deliveries: 3, expiredTotal: 1 });
    expect(health.expired).toHaveLength(7);
    expect(health.expired.at(-1)).toEqual({ date: new Date().toISOString().slice(0, 10), count: 1 });
    // days of the owner's display zone, as the overview's charts: an expiry at noon UTC is the next day at
    // Kiritimati (UTC+14), and the last day is Kiritimati's today
    const noon = Date.parse(`${new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10)}T12:00:00Z`);
    await provider.db.query(`UPDATE events SET created_at = $1 WHERE kind = 'expired'`, [new Date(noon)]);
    const zoned = (
      await owner(provider, 'GET', 'letters/subscriber-health?days=7&zone=Pacific/Kiritimati')
    ).json() as SubscriberHealthReply;
    const dateAt = (time: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Kiritimati' }).format(time);
    expect(zoned.expired.at(-1)!.date).toBe(dateAt(Date.now()));
    expect(zoned.expired.filter((day) => day.count > 0)).toEqual([{ date: dateAt(noon), count: 1 }]);
    expect(dateAt(noon)).not.toBe(new Date(noon).toISOString().slice(0, 10));
    expect(pushesTo(silent.path)).toHaveLength(3);
    // a fourth delivery that was shown takes the silent subscriber out of risk
    const fewer = await owner(provider, 'GET', 'letters/subscriber-health?deliveries=4');
    expect((fewer.json() as SubscriberHealthReply).atRisk).toBe(0);
  });
});
