// Issue 9, "Server input": every call the provider serves for a site, table-driven over bad input. Each row
// sends one bad request and expects a 4xx with `{status: "failure", message}` whose message starts with the
// name of the parameter at fault, no JSONP wrapping of an unsafe callback, and the database exactly as before
// (every table's rows, not only their counts). Valid JSONP callbacks wrap the answer.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_ERRORS, type ServerErrorCode } from '../../server/errors.ts';
import { BODY_LIMIT } from '../../server/http/app.ts';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import { markDelivered } from '../support/deliveries.ts';
import type { Database } from '../../server/db/database.ts';
import { storeShopOrder } from '../../server/shop/shop-orders.ts';
import { createSegment } from '../../server/segments/segment-store.ts';
import { encodeQuery, requestOf, routeTable, type Fields, type Route, type RouteFixture } from '../support/route-table.ts';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import { vapidKeyFile } from '../../server/state-paths.ts';
import { insertSubscriber, SITE_HASH, tempDir, testSite } from '../support/server.ts';

const OTHER_HASH = 'other-site-hash';
const UNKNOWN_HASH = 'no-such-site-hash';
const NUL = 'a\u0000b';
/** A lone UTF-16 surrogate: JSON carries it (\\ud800), PostgreSQL's jsonb refuses it. */
const LONE_SURROGATE = 'a\ud800b';
const UNSAFE_CALLBACKS = ['alert(1)', 'a.b;c', '<script>', 'x'.repeat(300), 'cb_1//', 'a..b', '1abc', ''];
const VALID_CALLBACKS = ['cb_1', 'jQuery123_456', '$', 'pushkit._cb.r1'];

let harness: ProviderHarness;
let db: Database;
let removeDist: () => Promise<void>;
let app: FastifyInstance;
let ownerKey: string;
let otherOwnerKey: string;
/** A subscriber of the test site and one of the other site, a campaign and an order, all stored before the rows run. */
const fixture: RouteFixture = {
  subscriberId: '',
  secret: '',
  endpoint: '',
  otherSubscriberId: '',
  campaignId: '',
  orderId: 'order-1001',
  victimId: '',
};

beforeAll(async () => {
  const dist = await tempDir('pushkit-input-dist-');
  removeDist = dist.remove;
  await mkdir(join(dist.path, 'letters'), { recursive: true });
  await writeFile(join(dist.path, 'letters', 'child-window.html'), '<!doctype html><title>child</title>');
  await writeFile(join(dist.path, 'letters', 'sw.js'), 'self.addEventListener("push", () => {});');
  // the key ring's routes read the site's VAPID key file; a rotation writes the new public key into its config file
  const vapid = generateVapidKeyPair();
  const letters = testSite({ builtDir: join(dist.path, 'letters') });
  const config = { ...letters.config, vapidPublicKey: vapid.publicKey };
  const file = join(dist.path, 'letters.json');
  await writeFile(file, JSON.stringify(config));
  const site = { ...letters, file, config };
  const other = testSite({ name: 'other', hash: OTHER_HASH, origin: 'https://other.example' });
  harness = await startProviderHarness({ via: 'createApp', service: false, sites: [site, other], rateLimit: false });
  await writeVapidKeyFile(vapidKeyFile(harness.stateDir, 'letters'), vapid);
  ({ app, db } = harness);
  ownerKey = harness.ownerKeyOf(site.name);
  otherOwnerKey = harness.ownerKeyOf(other.name);
  const subscriber = await insertSubscriber(app, { uuid: 'visitor-uuid-input' });
  ({ id: fixture.subscriberId, secret: fixture.secret } = subscriber);
  fixture.endpoint = subscriber.subscription.endpoint;
  const proof = `subscriberSecret=${fixture.secret}`;
  await app.inject({
    method: 'GET',
    url: `/tags?hash=${SITE_HASH}&subscriberId=${fixture.subscriberId}&${proof}&tags=${encodeURIComponent('{"plan":"pro"}')}`,
  });
  await app.inject({
    method: 'GET',
    url: `/as?id=news&customer_hash=${SITE_HASH}&subscriber_list[]=${fixture.subscriberId}&subscriberSecret[]=${fixture.secret}`,
  });
  const otherSubscriber = await app.inject({
    method: 'POST',
    url: '/syncSubscriptionAction.php',
    payload: { hash: OTHER_HASH, action: 'insert-failed', subscriptionId: 'other-site-token' },
  });
  fixture.otherSubscriberId = otherSubscriber.json().subscriberId;
  fixture.campaignId = (await createCampaign(db, site, { title: 'Hello', body: 'World', ttl: 60, urgency: 'normal' })).campaignId;
  await markDelivered(db, fixture.campaignId);
  await storeShopOrder(db, SITE_HASH, fixture.orderId, { total: 10, shipping: 0, tax: 0, discount: 0, items: [] });
});
afterAll(async () => {
  await harness?.close();
  await removeDist?.();
});

/** Every row of every table, in a stable order: what "stores nothing" compares. */
async function snapshot(): Promise<Record<string, string[]>> {
  const { rows: tables } = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const result: Record<string, string[]> = {};
  for (const { table_name: table } of tables) {
    const { rows } = await db.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${table}" t`);
    result[table] = rows.map((row) => row.row).sort();
  }
  return result;
}

const { routes: ROUTES, ownerRoutes: OWNER_ROUTES } = routeTable({
  fixture,
  ownerKey: () => ownerKey,
  insertSubscriber: async () => (await insertSubscriber(app)).id,
  inject: (request) => app.inject(request),
});

const REMOVE = Symbol('remove');

/** Sets (or removes) a field, `a.b.c` reaching into nested objects and arrays. */
function withField(fields: Fields, name: string, value: unknown): Fields {
  const copy = structuredClone(fields);
  const keys = name.split('.');
  let target = copy as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
  const last = keys.at(-1)!;
  if (value === REMOVE) delete target[last];
  else target[last] = value;
  return copy;
}

interface Row {
  route: Route;
  label: string;
  fields: Fields;
  extraQuery?: Fields;
  /** Replaces the request built from the fields (bodies over the limit, wrong content). */
  request?: () => InjectOptions;
  status: number;
  /** The message starts with `<param>: `. */
  param: string;
  /** And, when given, contains this. */
  says?: string;
}

const long = (length: number, char = 'a') => char.repeat(length);

/** The bad-input rows of one route: [field, bad value, expected status, what the message says]. */
const BAD_FIELDS: Record<string, [string, unknown, number, string][]> = {
  'POST /syncSubscriptionAction.php': [
    ['hash', REMOVE, 400, 'is required'],
    ['action', REMOVE, 400, 'is required'],
    ['action', 'subscribe', 400, 'must be one of'],
    ['hash', long(65), 400, 'at most 64'],
    ['hash', NUL, 400, 'NUL'],
    ['hash', [SITE_HASH, SITE_HASH], 400, 'single text value'],
    ['userTimezoneOffset', 'west', 400, 'integer'],
    ['userTimezoneOffset', '99999', 400, 'between'],
    ['userTimezoneOffset', '1'.repeat(40), 400, 'at most'],
    ['userLanguage', '<script>', 400, 'language tag'],
    ['userLanguage', NUL, 400, 'NUL'],
    ['subscriberId', long(129), 400, 'at most 128'],
    ['subscriberId', NUL, 400, 'NUL'],
    ['browserType', long(33), 400, 'at most 32'],
    ['subscription', '{not json', 400, 'PushSubscription'],
    ['subscription', JSON.stringify({ endpoint: 'javascript:alert(1)' }), 400, 'http(s)'],
    ['subscription', JSON.stringify({ endpoint: `https://push.example/${NUL}` }), 400, 'NUL'],
    ['subscription', JSON.stringify({ endpoint: 'https://push.example/a', keys: { p256dh: 5, auth: 'x' } }), 400, 'keys.p256dh'],
    ['subscription', long(5000), 400, 'at most 4096'],
    ['subscriptionEndPoint', 'javascript:alert(1)', 400, 'http(s)'],
    ['pageClickTrackingPermission', 'maybe', 400, '0, 1, true or false'],
    ['serviceWorkerPath', NUL, 400, 'NUL'],
    ['origin', long(300), 400, 'at most 256'],
  ],
  'POST /syncSubscriptionAction.php (JSON body)': [
    ['hash', 12345, 400, 'single text value'],
    ['action', ['http-sync'], 400, 'must be one of'],
    ['subscriberId', { id: 1 }, 400, 'single text value'],
    ['userTimezoneOffset', -60, 400, 'single text value'],
    ['subscriberId', NUL, 400, 'NUL'],
    ['subscriptionId', LONE_SURROGATE, 400, 'well-formed'],
    ['userTimezone', LONE_SURROGATE, 400, 'well-formed'],
  ],
  'GET /as': [
    ['id', REMOVE, 400, 'is required'],
    ['customer_hash', REMOVE, 400, 'is required'],
    ['subscriber_list[]', REMOVE, 400, 'is required'],
    ['id', 'has space', 400, 'letters, digits'],
    ['id', long(30), 400, 'at most 29'],
    ['id', NUL, 400, 'NUL'],
    ['customer_hash', long(65), 400, 'at most 64'],
    ['subscriber_list[]', [long(129)], 400, 'at most 128'],
    ['subscriber_list[]', Array.from({ length: 101 }, (_, i) => `s${i}`), 400, 'at most 100'],
    ['subscriber_list[]', [NUL], 400, 'NUL'],
    ['customTag', long(65), 400, 'at most 64'],
    ['customTag', '<b>', 400, 'letters, digits'],
    ['customTag', NUL, 400, 'NUL'],
  ],
  'GET /tags': [
    ['hash', REMOVE, 400, 'is required'],
    ['subscriberId', REMOVE, 400, 'is required'],
    ['subscriberSecret', REMOVE, 403, 'required to act for the subscriber'],
    ['subscriberSecret', 'A'.repeat(43), 403, 'not the secret'],
    ['subscriberSecret', 'short', 400, '43 base64url'],
    ['tags', REMOVE, 400, 'is required'],
    ['tags', 'not json', 400, 'JSON object'],
    ['tags', '[1,2]', 400, 'JSON object'],
    ['tags', '{}', 400, 'JSON object'],
    ['tags', JSON.stringify({ k: { nested: 1 } }), 400, 'JSON object'],
    ['tags', JSON.stringify({ k: long(257) }), 400, 'at most 256'],
    ['tags', JSON.stringify({ [long(65)]: 'v' }), 400, 'JSON object'],
    ['tags', JSON.stringify(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]))), 400, '1 to 50'],
    ['tags', JSON.stringify({ plan: NUL }), 400, 'NUL'],
    ['tags', JSON.stringify({ plan: LONE_SURROGATE }), 400, 'JSON object'],
    ['tags', '{"visits":1e400}', 400, 'JSON object'],
    ['tags', long(9000), 400, 'at most 8192'],
    ['subscriberId', long(129), 400, 'at most 128'],
    ['subscriberId', NUL, 400, 'NUL'],
    ['hash', NUL, 400, 'NUL'],
  ],
  'POST /tags (sendBeacon)': [
    ['tags', REMOVE, 400, 'is required'],
    ['tags', JSON.stringify({ plan: NUL }), 400, 'NUL'],
    ['subscriberId', long(129), 400, 'at most 128'],
  ],
  'GET /dyn': [
    ['hash', REMOVE, 400, 'is required'],
    ['hash', long(65), 400, 'at most 64'],
    ['subscriberId', long(129), 400, 'at most 128'],
    ['subscriberId', 'has space', 400, 'letters, digits'],
    ['subscriberId', NUL, 400, 'NUL'],
  ],
  'GET /getSubscriberAttributes.php': [
    ['hash', REMOVE, 400, 'is required'],
    ['subscriberId', REMOVE, 400, 'is required'],
    ['customDimensions', REMOVE, 400, 'is required'],
    ['customDimensions', ',,', 400, 'dimension names'],
    ['customDimensions', '["a",1]', 400, 'dimension names'],
    ['customDimensions', '[not json', 400, 'dimension names'],
    ['customDimensions', long(2049), 400, 'at most 2048'],
    ['customDimensions', Array.from({ length: 51 }, (_, i) => `d${i}`).join(','), 400, '1 to 50'],
    ['customDimensions', NUL, 400, 'NUL'],
    ['browser', long(33), 400, 'at most 32'],
    ['browser', '<script>', 400, 'letters, digits'],
  ],
  'GET /getSubscriptionClickTrackingPermissionDetails.php': [
    ['customerHash', REMOVE, 400, 'is required'],
    ['subscriberId', REMOVE, 400, 'is required'],
    ['customerHash', long(65), 400, 'at most 64'],
    ['subscriberId', long(129), 400, 'at most 128'],
    ['subscriberId', NUL, 400, 'NUL'],
    ['browser', NUL, 400, 'NUL'],
  ],
  'GET /c.gif': [
    ['hash', REMOVE, 400, 'is required'],
    ['subscriberId', REMOVE, 400, 'is required'],
    ['segment', REMOVE, 400, 'is required'],
    ['action', REMOVE, 400, 'is required'],
    ['action', 'drop-table', 400, 'add-segment or remove-segment'],
    ['segment', long(30), 400, 'at most 29'],
    ['segment', "x'; DROP TABLE segments;--", 400, 'letters, digits'],
    ['subscriptionId', long(1025), 400, 'at most 1024'],
    ['subscriptionId', NUL, 400, 'NUL'],
    ['subscriberId', NUL, 400, 'NUL'],
  ],
  'POST /api/v1/shopify/orders': [
    ['hash', REMOVE, 400, 'is required'],
    ['orderId', REMOVE, 400, 'is required'],
    ['order', REMOVE, 400, 'is required'],
    ['order.total', REMOVE, 400, 'is required'],
    ['order.total', '42.5', 400, 'number'],
    ['order.total', -1, 400, ''],
    ['order.total', 1e12, 400, ''],
    ['orderId', 1001, 400, 'single text value'],
    ['orderId', long(65), 400, 'at most 64'],
    ['orderId', 'a b', 400, 'letters, digits'],
    ['orderId', NUL, 400, 'NUL'],
    ['hash', NUL, 400, 'NUL'],
    ['order.coupon', long(65), 400, ''],
    ['order.coupon', NUL, 400, 'NUL'],
    ['order.items', 'none', 400, 'array'],
    ['order.items.0.pName', NUL, 400, 'NUL'],
    ['order.items.0.pName', long(257), 400, ''],
    ['order.items.0.pQuant', 'two', 400, 'number'],
    ['order.items.0.pQuant', 0, 400, ''],
    ['order.items.0.pQuant', 1.5, 400, ''],
    ['order.items.0.pPrice', REMOVE, 400, 'is required'],
    ['order.items.0.pImgUrl', 'javascript:alert(1)', 400, ''],
    ['order.items.0.pSku', NUL, 400, 'NUL'],
    ['order.items.0.pName', LONE_SURROGATE, 400, 'well-formed'],
    ['order.coupon', LONE_SURROGATE, 400, 'well-formed'],
    ['order.items.0.pImgUrl', `https://letters.example/${NUL}.png`, 400, 'NUL'],
    ['order.items.0.pId', NUL, 400, 'NUL'],
    ['order.items.0.pId', { a: 1 }, 400, ''],
    ['order.items.0.extra', 'x', 400, 'not a parameter'],
    ['order.extra', 'x', 400, 'not a parameter'],
    ['extra', 'x', 400, 'not a parameter'],
  ],
  'POST /api/v1/shopify/cart': [
    ['hash', REMOVE, 400, 'is required'],
    ['subscriberId', REMOVE, 400, 'is required'],
    ['subscriberId', NUL, 400, 'NUL'],
    ['subscriberSecret', REMOVE, 403, 'required to act for the subscriber'],
    ['subscriberSecret', 'A'.repeat(43), 403, 'not the secret'],
    ['pName', REMOVE, 400, 'is required'],
    ['pName', ' ', 400, 'must not be empty'],
    ['pName', long(257), 400, 'at most 256'],
    ['pName', `Ink${NUL}`, 400, 'NUL'],
    ['price', '12,99', 400, 'price'],
    ['price', '-1', 400, 'price'],
    ['pId', long(65), 400, 'at most 64'],
    ['pUrl', long(2049), 400, 'at most 2048'],
    ['pImgUrl', 'javascript:alert(1)', 400, 'http(s)'],
    ['extra', 'x', 400, 'not a parameter'],
  ],
  'GET /api/v1/shopify/getOrderDetails': [
    ['hash', REMOVE, 400, 'is required'],
    ['orderId', REMOVE, 400, 'is required'],
    ['orderId', long(65), 400, 'at most 64'],
    ['orderId', "1' OR '1'='1", 400, 'letters, digits'],
    ['orderId', NUL, 400, 'NUL'],
  ],
  'POST /notificationEvent': [
    ['hash', REMOVE, 400, 'is required'],
    ['campaignId', REMOVE, 400, 'required when no click token is given'],
    ['event', REMOVE, 400, 'is required'],
    ['event', 'exploded', 400, 'shown, clicked or closed'],
    ['click', '1.short', 400, 'click token of a delivery'],
    ['click', `1.${'A'.repeat(22)}`, 403, 'not the click token'],
    ['click', 42, 400, 'click token of a delivery'],
    ['campaignId', 'abc', 400, 'campaign id'],
    ['campaignId', -1, 400, 'campaign id'],
    ['campaignId', 1.5, 400, 'campaign id'],
    ['campaignId', '9'.repeat(19), 400, 'campaign id'],
    ['hash', 7, 400, 'single text value'],
    ['hash', NUL, 400, 'NUL'],
    // without a click token the report must name the push subscription of a subscriber the campaign went to
    ['endpoint', REMOVE, 403, 'push subscription of a subscriber this campaign was sent to'],
    ['endpoint', 'https://fcm.googleapis.com/fcm/send/guessed', 403, 'push subscription of a subscriber this campaign was sent to'],
    ['endpoint', 'javascript:alert(1)', 400, 'http(s)'],
    ['endpoint', `https://push.example/${long(1100)}`, 400, 'at most 1024'],
    ['endpoint', `https://push.example/${NUL}`, 400, 'NUL'],
    ['endpoint', `https://push.example/${LONE_SURROGATE}`, 400, 'well-formed'],
    ['extra', 'x', 400, 'not a parameter'],
  ],
  'GET /api/v1/sites/:name/subscribers': [
    ['limit', 'ten', 400, 'must be a number'],
    ['limit', '0', 400, ''],
    ['limit', '5000', 400, ''],
    ['limit', '1.5', 400, 'integer'],
    ['offset', '-1', 400, ''],
    ['status', 'gone', 400, 'must be one of'],
    ['search', long(201), 400, 'at most 200'],
    ['segment', 'a b', 400, 'letters, digits'],
    ['segment', 'no-such-segment', 404, 'no segment'],
    ['order', 'random', 400, 'oldest or newest'],
  ],
  'GET /api/v1/sites/:name/stats': [
    ['days', '0', 400, '1 to 366'],
    ['days', '367', 400, '1 to 366'],
    ['days', 'week', 400, 'must be a number'],
  ],
  'GET /api/v1/sites/:name/audience': [
    ['segment', 'a b', 400, 'letters, digits'],
    ['segment', 'no-such-segment', 404, 'no segment'],
    ['subscriberId', long(129), 400, 'at most 128'],
  ],
  'GET /api/v1/sites/:name/subscribers/:id': [
    ['id', 'a b', 400, 'letters, digits'],
    ['id', NUL, 400, 'NUL'],
    ['id', 'nobody', 404, 'no subscriber'],
  ],
  'GET /api/v1/sites/:name/subscribers/:id/export': [
    ['id', 'a b', 400, 'letters, digits'],
    ['id', 'nobody', 404, 'no subscriber'],
  ],
  'DELETE /api/v1/sites/:name/subscribers/:id': [
    ['id', 'a b', 400, 'letters, digits'],
    ['id', 'nobody', 404, 'no subscriber'],
  ],
  'PUT /api/v1/sites/:name/subscribers/:id/dimensions': [
    ['id', 'nobody', 404, 'no subscriber'],
    ['id', 'a b', 400, 'letters, digits'],
    ['city', long(257), 400, ''],
    ['city', { nested: 1 }, 400, ''],
    ['city', `Paris${NUL}`, 400, 'NUL'],
    ['city', `Paris${LONE_SURROGATE}`, 400, 'well-formed'],
  ],
  'POST /api/v1/sites/:name/segments': [
    ['sid', REMOVE, 400, 'is required'],
    ['sid', 'a b', 400, 'letters, digits'],
    ['sid', long(30), 400, ''],
    ['sid', 'news', 409, 'exists already'],
    ['name', long(101), 400, ''],
    ['name', `News${NUL}`, 400, 'NUL'],
    ['name', `News${LONE_SURROGATE}`, 400, 'well-formed'],
    ['condition', long(2001), 400, 'at most 2000'],
    ['condition', 'url ===', 400, 'column'],
    ['extra', 'x', 400, 'not a parameter'],
  ],
  'PUT /api/v1/sites/:name/segments/:sid/members/:id': [
    ['sid', 'a b', 400, 'letters, digits'],
    ['sid', 'no-such-segment', 404, 'no segment'],
    ['sid', long(30), 400, 'at most 29'],
    ['id', 'nobody', 404, 'no subscriber'],
  ],
  'DELETE /api/v1/sites/:name/segments/:sid/members/:id': [
    ['sid', 'a b', 400, 'letters, digits'],
    ['sid', 'no-such-segment', 404, 'no segment'],
    ['id', 'nobody', 404, 'no subscriber'],
  ],
  'DELETE /api/v1/sites/:name/segments/:sid': [
    ['sid', 'a b', 400, 'letters, digits'],
    ['sid', 'no-such-segment', 404, 'no segment'],
  ],
  'POST /api/v1/sites/:name/campaigns': [
    ['title', REMOVE, 400, 'is required'],
    ['title', '', 400, 'must not be empty'],
    ['title', long(201), 400, ''],
    ['title', 42, 400, ''],
    ['body', REMOVE, 400, 'is required'],
    ['title', `Sale${NUL}`, 400, 'NUL'],
    ['body', `Today${LONE_SURROGATE}`, 400, 'well-formed'],
    ['actions.0.title', `Open${NUL}`, 400, 'NUL'],
    ['url', 'javascript:alert(1)', 400, 'http(s)'],
    ['actions', 'open', 400, 'must be a list'],
    [
      'actions',
      [
        { action: 'a', title: 'A' },
        { action: 'b', title: 'B' },
        { action: 'c', title: 'C' },
      ],
      400,
      'at most 2',
    ],
    ['actions.0.title', long(41), 400, 'at most 40'],
    ['actions.0.extra', 'x', 400, 'not a parameter'],
    ['ttl', -1, 400, ''],
    ['ttl', 'soon', 400, ''],
    ['urgency', 'asap', 400, 'must be one of'],
    ['subscriberId', long(129), 400, 'at most 128'],
    ['segment', 'no-such-segment', 404, 'no segment'],
    ['extra', 'x', 400, 'not a parameter'],
    ['sendAt', 'tomorrow', 400, 'ISO 8601'],
    ['sendAt', '2026-12-01T09:00:00', 400, 'with its offset'],
    ['sendAt', '2100-01-01T00:00:01Z', 400, 'before 2100'],
    ['localTime', '24:00', 400, 'time of day'],
    ['localTime', ['09:00'], 400, 'time of day'],
    ['appBadge', -1, 400, '0 or more'],
    ['appBadge', 'three', 400, 'whole number'],
    ['topic', 'a'.repeat(33), 400, 'RFC 8030 topic'],
    ['topic', 'no spaces', 400, 'RFC 8030 topic'],
    ['variants', [{}], 400, '2 to 4 variants'],
    ['variants', 'ab', 400, 'must be a list'],
    ['variants', [{}, {}], 400, 'needs testFraction and winnerAfterMinutes'],
    ['testFraction', 0, 400, '0.05 or more'],
    ['winnerAfterMinutes', 1e9, 400, 'a week'],
  ],
  'POST /api/v1/sites/:name/campaigns/:id/cancel': [
    ['id', 'abc', 400, 'campaign id'],
    ['id', '999999', 404, 'no campaign'],
  ],
  'GET /api/v1/sites/:name/campaigns': [
    ['limit', 'x', 400, 'must be a number'],
    ['offset', '-1', 400, ''],
  ],
  'GET /api/v1/sites/:name/campaigns/:id': [
    ['id', 'abc', 400, 'campaign id'],
    ['id', '999999', 404, 'no campaign'],
  ],
  'GET /api/v1/sites/:name/automations/:kind': [
    ['kind', 'birthday', 400, 'must be one of welcome, abandonedCart, browseAbandonment, priceDrop, backInStock, winBack'],
  ],
  'PATCH /api/v1/sites/:name/automations/:kind': [
    ['kind', 'birthday', 400, 'must be one of'],
    ['delayMinutes', -1, 400, '0 to 43200'],
    ['delayMinutes', '5', 400, 'whole number'],
    ['enabled', 'yes', 400, 'true or false'],
    ['title', '', 400, 'must not be empty'],
    ['title', long(201), 400, 'at most 200'],
    ['title', `Hi${NUL}`, 400, 'NUL'],
    ['body', `Hi${LONE_SURROGATE}`, 400, 'well-formed'],
    ['url', 'javascript:alert(1)', 400, 'http(s)'],
    ['conversionWindowHours', 721, 400, '1 to 720'],
    ['extra', 'x', 400, 'not a parameter'],
  ],
  'GET /api/v1/sites/:name/subscriber-health': [
    ['days', '0', 400, '1 to 366'],
    ['deliveries', '21', 400, '1 to 20'],
    ['deliveries', 'many', 400, 'must be a number'],
    ['zone', 'Mars/Olympus', 400, 'must be an IANA time zone'],
  ],
  'GET /sites/:hash/child-window.html': [
    ['hash', long(65), 400, 'at most 64'],
    ['hash', 'a b', 400, 'letters, digits'],
    ['hash', NUL, 400, 'NUL'],
  ],
  'GET /sites/:hash/:worker': [
    ['worker', 'evil.js', 400, 'sw.js'],
    ['worker', '..%2Fsites.json', 400, 'sw.js'],
    ['hash', long(65), 400, 'at most 64'],
  ],
};

/** The name the message starts with: `subscriber_list[]` entries are named by their index. */
function paramOf(field: string, value: unknown): string {
  if (field.endsWith('[]')) return Array.isArray(value) && value.length <= 100 ? `${field.slice(0, -2)}.0` : field.slice(0, -2);
  return field;
}

/** Rows that change several fields: [label, changes, status, param, what the message says]. */
const BAD_COMBINATIONS: Record<string, [string, () => Fields, number, string, string][]> = {
  'POST /syncSubscriptionAction.php': [
    [
      'insert without a subscription',
      () => ({ action: 'insert', subscriberId: REMOVE }),
      400,
      'subscription',
      'an endpoint or a subscriptionId is required',
    ],
    ['update without a subscription', () => ({ action: 'update' }), 400, 'subscription', 'an endpoint or a subscriptionId is required'],
    [
      'update-google-registration-id without previousSubscriptionId',
      () => ({ action: 'update-google-registration-id', subscriptionId: 'new-token' }),
      400,
      'previousSubscriptionId',
      'is required',
    ],
    [
      'http-sync naming nobody',
      () => ({ subscriberId: REMOVE }),
      400,
      'subscriberId',
      'a subscriberId, subscriptionId or subscription is required',
    ],
    ['unsubscribe-ui naming nobody', () => ({ action: 'unsubscribe-ui', subscriberId: REMOVE }), 400, 'subscriberId', 'is required'],
    [
      'get-subscriberid-from-server naming nobody',
      () => ({ action: 'get-subscriberid-from-server', subscriberId: REMOVE }),
      400,
      'uuid',
      'is required',
    ],
    [
      'update-subscriberId without previousSubscriberId',
      () => ({ action: 'update-subscriberId' }),
      400,
      'previousSubscriberId',
      'is required',
    ],
    [
      'update-subscriberId without subscriberId',
      () => ({ action: 'update-subscriberId', previousSubscriberId: fixture.subscriberId, subscriberId: REMOVE }),
      400,
      'subscriberId',
      'is required',
    ],
    [
      'unsubscribe-ui of an unknown subscriber',
      () => ({ action: 'unsubscribe-ui', subscriberId: 'nobody' }),
      404,
      'subscriberId',
      'no subscriber',
    ],
    [
      'update of an unknown subscriber',
      () => ({ action: 'update', subscriberId: 'nobody', subscriptionId: 'never-seen-token' }),
      404,
      'subscriberId',
      'no subscriber',
    ],
    [
      'update-google-registration-id of an unknown registration',
      () => ({
        action: 'update-google-registration-id',
        previousSubscriptionId: 'never-seen',
        subscriptionId: 'new-token',
        subscriberId: REMOVE,
      }),
      404,
      'previousSubscriptionId',
      'no subscriber',
    ],
    [
      'update-subscriberId of an unknown subscriber',
      () => ({ action: 'update-subscriberId', previousSubscriberId: 'nobody', subscriberId: 'uuid-x' }),
      404,
      'previousSubscriberId',
      'no subscriber',
    ],
  ],
  'GET /api/v1/sites/:name/audience': [
    ['a segment and a subscriber', () => ({ subscriberId: fixture.subscriberId }), 400, 'segment', 'not both'],
    ['an unknown subscriber', () => ({ segment: REMOVE, subscriberId: 'nobody' }), 404, 'subscriberId', 'no subscriber'],
  ],
  'POST /api/v1/sites/:name/campaigns': [
    ['a segment and a subscriber', () => ({ subscriberId: fixture.subscriberId }), 400, 'segment', 'not both'],
    ['an unknown subscriber', () => ({ segment: REMOVE, subscriberId: 'nobody' }), 404, 'subscriberId', 'no subscriber'],
    [
      'two buttons of one name',
      () => ({
        actions: [
          { action: 'a', title: 'A' },
          { action: 'a', title: 'B' },
        ],
      }),
      400,
      'actions',
      'must differ',
    ],
  ],
  'GET /c.gif': [
    [
      'remove-segment of an unknown subscriber',
      () => ({ action: 'remove-segment', subscriberId: 'nobody' }),
      404,
      'subscriberId',
      'no subscriber',
    ],
  ],
  'POST /notificationEvent': [['a campaign of no site', () => ({ campaignId: '999999' }), 404, 'campaignId', 'no campaign']],
};

function rowsOf(route: Route): Row[] {
  const rows: Row[] = [];
  for (const [label, changes, status, param, says] of BAD_COMBINATIONS[route.name] ?? []) {
    const fields = Object.entries(changes()).reduce((all, [field, value]) => withField(all, field, value), route.valid());
    rows.push({ route, label, fields, status, param, says });
  }
  for (const [field, value, status, says] of BAD_FIELDS[route.name] ?? []) {
    const shown =
      value === REMOVE
        ? 'missing'
        : typeof value === 'string'
          ? JSON.stringify(value.length > 40 ? `${value.slice(0, 20)}…(${value.length})` : value)
          : JSON.stringify(value);
    rows.push({
      route,
      label: `${field} ${shown}`,
      fields: withField(route.valid(), field, value),
      status,
      param: paramOf(field, value),
      says: says || undefined,
    });
  }
  // an unknown site, and for calls about a subscriber, a subscriber of another site
  const says = route.unknownSite ?? 'unknown site hash';
  rows.push({
    route,
    label: 'unknown site',
    fields: withField(route.valid(), route.hashField ?? route.hashParam, UNKNOWN_HASH),
    status: route.owner ? 401 : 404,
    param: route.owner ? 'authorization' : route.hashParam,
    says,
  });
  // a path id past fastify's default maxParamLength (100) still reaches the route's own check
  // (the owner API looks the name up among the hosted sites: an unknown site, answered as a wrong key)
  rows.push({
    route,
    label: 'site of 150 characters',
    fields: withField(route.valid(), route.hashField ?? route.hashParam, 'h'.repeat(150)),
    status: route.owner ? 401 : 400,
    param: route.owner ? 'authorization' : route.hashParam,
  });
  const subscriberParam =
    route.subscriberParam ?? ('subscriberId' in route.valid() && route.carrier !== 'json' ? 'subscriberId' : undefined);
  if (subscriberParam) {
    rows.push({
      route,
      label: 'subscriber of another site',
      fields: withField(route.valid(), subscriberParam, fixture.otherSubscriberId),
      status: 404,
      param: subscriberParam,
    });
  }
  if (route.owner) {
    const withAuthorization = (authorization: string | undefined) => () => {
      const request = requestOf(route, route.valid());
      const headers = { ...(request.headers as Record<string, string>) };
      if (authorization === undefined) delete headers.authorization;
      else headers.authorization = authorization;
      return { ...request, headers };
    };
    for (const [label, authorization] of [
      ['no owner key', undefined],
      ['a wrong owner key', 'Bearer pk_wrong'],
      ["another site's owner key", `Bearer ${otherOwnerKey}`],
      ['a Basic authorization', 'Basic dXNlcjpwYXNz'],
      ['an owner key with a NUL', `Bearer pk_${NUL}`],
    ] as const) {
      rows.push({ route, label, fields: {}, request: withAuthorization(authorization), status: 401, param: 'authorization' });
    }
  }
  if (route.jsonp) {
    for (const callback of UNSAFE_CALLBACKS) {
      rows.push({
        route,
        label: `callback ${JSON.stringify(callback.slice(0, 20))}`,
        fields: route.valid(),
        extraQuery: { callback },
        status: 400,
        param: 'callback',
      });
    }
    rows.push({
      route,
      label: 'two callbacks',
      fields: route.valid(),
      extraQuery: { callback: ['cb_1', 'alert(1)'] },
      status: 400,
      param: 'callback',
    });
  } else {
    // an error reply of a call without JSONP is plain JSON whatever callback is asked for
    rows.push({
      route,
      label: 'unknown site with callback alert(1)',
      fields: withField(route.valid(), route.hashField ?? route.hashParam, UNKNOWN_HASH),
      extraQuery: { callback: 'alert(1)' },
      status: route.owner ? 401 : 404,
      param: route.owner ? 'authorization' : route.hashParam,
    });
  }
  if (route.carrier === 'json' || route.carrier === 'form' || route.carrier === 'beacon') {
    const big = long(BODY_LIMIT + 10);
    const request = requestOf(route, route.valid());
    const payload =
      route.carrier === 'form'
        ? `${String(request.payload)}&pad=${big}`
        : route.carrier === 'json'
          ? JSON.stringify({ ...JSON.parse(String(request.payload)), pad: big })
          : big;
    rows.push({
      route,
      label: `body over ${BODY_LIMIT} bytes`,
      fields: {},
      request: () => ({ ...request, payload }),
      status: 413,
      param: 'body',
    });
  }
  if (route.carrier === 'json') {
    rows.push({
      route,
      label: 'body that is not JSON',
      fields: {},
      request: () => ({ ...requestOf(route, route.valid()), payload: '{"hash":' }),
      status: 400,
      // fastify's JSON parser refuses it before the route runs; app.ts names the body
      param: 'body',
      says: 'Body is not valid JSON',
    });
    rows.push({
      route,
      label: 'JSON array body',
      fields: {},
      request: () => ({ ...requestOf(route, route.valid()), payload: '[]' }),
      status: 400,
      param: 'body',
    });
  }
  return rows;
}

const ALL_ROUTES = [...ROUTES, ...OWNER_ROUTES];
const ROWS = ALL_ROUTES.flatMap(rowsOf);

/** `METHOD /path` of every route in fastify's printRoutes tree (HEAD and the CORS preflight left out). */
function registeredRoutes(tree: string): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (\S+) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    stack.length = match[1]!.length / 4;
    stack.push(match[2]!);
    for (const method of match[3]!.split(', ')) if (method !== 'HEAD' && method !== 'OPTIONS') routes.push(`${method} ${stack.join('')}`);
  }
  return routes;
}

/** Codes whose status is fastify's own (415 for a content type it cannot parse, ...), not the catalogue's. */
const STATUS_FROM_FASTIFY: ServerErrorCode[] = ['E_REQUEST_INVALID', 'E_BODY_INVALID'];

/** Whether a failure's code is catalogued with the status it was answered with, and "is required" is E_PARAM_MISSING. */
function codeFits(body: { message: string; code?: string }, status: number): boolean {
  const entry = SERVER_ERRORS[body.code as ServerErrorCode] as { status: number } | undefined;
  if (!entry) return false;
  if (/^[\w.[\]]+: is required$/.test(body.message) !== (body.code === 'E_PARAM_MISSING')) return false;
  return entry.status === status || STATUS_FROM_FASTIFY.includes(body.code as ServerErrorCode);
}

/** The `{status, message, code}` of a failure; never JSONP-wrapped. */
function failureOf(reply: LightMyRequestResponse): { status: string; message: string; code?: string } {
  expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
  return reply.json();
}

describe('every site call refuses bad input with a 4xx naming the parameter, storing nothing', () => {
  it('covers every route the server registers for sites', () => {
    const registered = registeredRoutes(app.printRoutes({ commonPrefix: false }));
    // not about one site: the dashboard's files, the health check, the shared stylesheet, the key's site list, a
    // sign-in link's trade for a key (server-roles.test.ts), a test send, which pushes to a browser at once
    // (tests/e2e/dashboard-compose.test.ts)
    const notPerSite =
      /^(GET \/(dashboard|health$|http-v4\/css\/pc-iframe\.css$|api\/v1\/sites$)|POST \/api\/v1\/(sign-in|sites\/:name\/test-sends)$)/;
    const perSite = registered.filter((route) => !notPerSite.test(route)).sort();
    const covered = [...new Set(ALL_ROUTES.map((route) => route.name.replace(/ \(.*\)$/, '')))].sort();
    expect(perSite.length).toBeGreaterThan(25);
    expect(covered).toEqual(perSite);
    expect(ROWS.length).toBeGreaterThan(400);
  });

  for (const route of ALL_ROUTES) {
    it(`${route.name}: ${rowsOf(route).length} bad requests`, async () => {
      await route.setup?.();
      const valid = await app.inject(requestOf(route, route.valid()));
      expect(valid.statusCode, `${route.name} valid request: ${valid.body}`).toBeLessThan(300);
      const before = await snapshot();
      const problems: string[] = [];
      for (const row of rowsOf(route)) {
        const reply = await app.inject(row.request ? row.request() : requestOf(route, row.fields, row.extraQuery));
        const where = `${route.name} [${row.label}] -> ${reply.statusCode} ${reply.body.slice(0, 300)}`;
        if (reply.statusCode !== row.status) {
          problems.push(`expected ${row.status}: ${where}`);
          continue;
        }
        if (!String(reply.headers['content-type']).startsWith('application/json')) {
          problems.push(`not JSON: ${where}`);
          continue;
        }
        const body = failureOf(reply);
        if (body.status !== 'failure' || !body.message.startsWith(`${row.param}: `))
          problems.push(`message does not name ${row.param}: ${where}`);
        else if (row.says && !body.message.includes(row.says)) problems.push(`message does not say "${row.says}": ${where}`);
        if (!codeFits(body, reply.statusCode)) problems.push(`code ${body.code} does not fit: ${where}`);
        const callback = row.extraQuery?.callback;
        if (typeof callback === 'string' && callback.length > 2 && reply.body.includes(callback))
          problems.push(`callback echoed: ${where}`);
      }
      expect(problems).toEqual([]);
      expect(await snapshot()).toEqual(before);
    });
  }

  it('the snapshot sees a stored row (the rows above would notice anything stored)', async () => {
    // the owner's segment: the fixture subscriber has used up the segments a subscriber may create
    await createSegment(db, SITE_HASH, 'probe', 'probe');
    const before = await snapshot();
    const reply = await app.inject({
      method: 'GET',
      url: `/c.gif?hash=${SITE_HASH}&subscriberId=${fixture.subscriberId}&subscriberSecret=${fixture.secret}&segment=probe&action=add-segment`,
    });
    expect(reply.statusCode).toBe(200);
    const after = await snapshot();
    expect(after.segment_memberships!.length).toBe(before.segment_memberships!.length + 1);
    expect(after.events!.length).toBe(before.events!.length + 1);
    expect(after).not.toEqual(before);
  });
});

describe('JSONP', () => {
  const readOnly: [string, Fields][] = [
    ['/dyn', { hash: SITE_HASH, subscriberId: 'SUBSCRIBER' }],
    ['/getSubscriberAttributes.php', { hash: SITE_HASH, subscriberId: 'SUBSCRIBER', customDimensions: 'plan' }],
    ['/getSubscriptionClickTrackingPermissionDetails.php', { customerHash: SITE_HASH, subscriberId: 'SUBSCRIBER' }],
    ['/api/v1/shopify/getOrderDetails', { hash: SITE_HASH, orderId: 'order-1001' }],
    ['/tags', { hash: SITE_HASH, subscriberId: 'SUBSCRIBER', tags: '{"plan":"pro"}' }],
    ['/as', { id: 'news', customer_hash: SITE_HASH, subscriber_list: 'SUBSCRIBER' }],
  ];

  it.each(VALID_CALLBACKS)('callback %s wraps the answer of every JSONP call', async (callback) => {
    const escaped = callback.replace(/[.$]/g, '\\$&');
    const wrapped = new RegExp(`^/\\*\\*/ ${escaped}\\((.*)\\);$`, 's');
    for (const [path, params] of readOnly) {
      const query = encodeQuery({
        ...params,
        subscriberId: params.subscriberId && fixture.subscriberId,
        subscriberSecret: params.subscriberId && fixture.secret,
        subscriber_list: params.subscriber_list && fixture.subscriberId,
        'subscriberSecret[]': params.subscriber_list && fixture.secret,
        callback,
      });
      const reply = await app.inject({ method: 'GET', url: `${path}?${query}` });
      expect(reply.statusCode, `${path}: ${reply.body}`).toBe(200);
      expect(reply.headers['content-type']).toBe('application/javascript; charset=utf-8');
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
      const match = wrapped.exec(reply.body);
      expect(match, `${path}: ${reply.body}`).not.toBeNull();
      expect(JSON.parse(match![1]!).status).toBe('success');
    }
    const sync = await app.inject({
      method: 'POST',
      url: '/syncSubscriptionAction.php',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: encodeQuery({
        hash: SITE_HASH,
        action: 'get-subscriberid-from-server',
        uuid: 'visitor-uuid-input',
        subscriberSecret: fixture.secret,
        callback,
      }),
    });
    expect(JSON.parse(wrapped.exec(sync.body)![1]!)).toEqual({ status: 'success', subscriberId: fixture.subscriberId });
  });

  it('a refused request with a safe callback is wrapped too, naming the parameter', async () => {
    const reply = await app.inject({ method: 'GET', url: `/dyn?hash=${UNKNOWN_HASH}&callback=cb_1` });
    expect(reply.statusCode).toBe(404);
    expect(reply.body).toBe('/**/ cb_1({"status":"failure","message":"hash: unknown site hash","code":"E_SITE_UNKNOWN"});');
  });
});
