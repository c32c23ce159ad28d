// The services calls of spec section 7 besides the sync, the provider's files, CORS and the error replies.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.ts';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import { markDelivered } from '../support/deliveries.ts';
import { databaseUnavailable, type Database } from '../../server/db/database.ts';
import type { HostedSite } from '../../server/sites.ts';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { insertSubscriber, postSync, SITE_HASH, SITE_ORIGIN, tempDir, testSite } from '../support/server.ts';

let harness: ProviderHarness;
let db: Database;
let app: FastifyInstance;
let site: HostedSite;
let ownerKey: string;
let removeDist: () => Promise<void>;

const OTHER_HASH = 'other-site-hash';

beforeAll(async () => {
  const dist = await tempDir('pushkit-dist-');
  removeDist = dist.remove;
  await mkdir(join(dist.path, 'letters', 'http-v4', 'css'), { recursive: true });
  await writeFile(join(dist.path, 'letters', 'child-window.html'), '<!doctype html><title>Subscribe to notifications from Letters</title>');
  await writeFile(join(dist.path, 'letters', 'http-v4', 'css', 'pc-iframe.css'), '.pk-child{color:#222}');
  site = testSite({ builtDir: join(dist.path, 'letters') });
  const other = testSite({ name: 'other', hash: OTHER_HASH, origin: 'https://other.example', builtDir: join(dist.path, 'other') });
  harness = await startProviderHarness({ via: 'createApp', service: false, sites: [site, other] });
  ({ app, db, ownerKey } = harness);
});
afterAll(async () => {
  await harness?.close();
  await removeDist();
});

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });
const query = (params: Record<string, string | string[]>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) for (const one of [value].flat()) search.append(key, one);
  return search.toString();
};

describe('/as adds subscribers to segments', () => {
  it('adds every listed subscriber (subscriber_list[] or repeated subscriber_list), creating the segment, with its customTag', async () => {
    const a = await insertSubscriber(app);
    const b = await insertSubscriber(app);
    const reply = await get(
      `/as?${query({ id: 'newsletter', customer_hash: SITE_HASH, 'subscriber_list[]': [a.id, b.id], 'subscriberSecret[]': [a.secret, b.secret], customTag: 'footer form' })}`,
    );
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toEqual({ status: 'success' });
    const single = await get(`/as?${query({ id: '7', customer_hash: SITE_HASH, subscriber_list: a.id, subscriberSecret: a.secret })}`);
    expect(single.json()).toEqual({ status: 'success' });
    const dyn = await get(`/dyn?hash=${SITE_HASH}&subscriberId=${a.id}&subscriberSecret=${a.secret}`);
    expect(dyn.json()).toEqual({ status: 'success', tags: {}, segments: ['7', 'newsletter'] });
    const { rows } = await db.query<{ custom_tag: string }>(
      `SELECT m.custom_tag FROM segment_memberships m JOIN segments s ON s.id = m.segment_id WHERE s.sid = 'newsletter' AND m.subscriber_id = $1`,
      [b.id],
    );
    expect(rows).toEqual([{ custom_tag: 'footer form' }]);
  });

  it('refuses an unknown subscriber (404), a bad segment id or a missing list (400), storing nothing', async () => {
    const a = await insertSubscriber(app);
    const unknown = await get(
      `/as?${query({ id: 'late', customer_hash: SITE_HASH, 'subscriber_list[]': [a.id, 'nobody'], 'subscriberSecret[]': [a.secret, a.secret] })}`,
    );
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({
      status: 'failure',
      message: 'subscriber_list: no subscriber nobody on this site',
      code: 'E_SUBSCRIBER_UNKNOWN',
    });
    const badId = await get(`/as?${query({ id: 'has space', customer_hash: SITE_HASH, 'subscriber_list[]': a.id })}`);
    expect(badId.statusCode).toBe(400);
    expect(badId.json().message).toBe('id: must be 1 to 29 letters, digits, "_" or "-"');
    const tooLong = await get(`/as?${query({ id: 'x'.repeat(30), customer_hash: SITE_HASH, 'subscriber_list[]': a.id })}`);
    expect(tooLong.json()).toMatchObject({ code: 'E_PARAM_INVALID', message: expect.stringMatching(/^id: /) });
    const noList = await get(`/as?${query({ id: 'late', customer_hash: SITE_HASH })}`);
    expect(noList.json()).toMatchObject({ code: 'E_PARAM_MISSING', message: 'subscriber_list: is required' });
    const badHash = await get(`/as?${query({ id: 'late', customer_hash: 'nope', 'subscriber_list[]': a.id })}`);
    expect(badHash.statusCode).toBe(404);
    expect(badHash.json()).toMatchObject({ code: 'E_SITE_UNKNOWN', message: 'customer_hash: unknown site hash' });
    const { rows } = await db.query(`SELECT 1 FROM segments WHERE sid = 'late'`);
    expect(rows).toHaveLength(0);
  });
});

describe('/tags and /dyn', () => {
  it('stores tags (null removes one) and /dyn returns them as JSONP', async () => {
    const { id, secret } = await insertSubscriber(app);
    const first = await get(
      `/tags?${query({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret, tags: JSON.stringify({ plan: 'pro', visits: 3, vip: true, gone: 'x' }) })}`,
    );
    expect(first.json()).toEqual({ status: 'success' });
    await get(
      `/tags?${query({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret, tags: JSON.stringify({ gone: null, visits: 4 }) })}`,
    );
    const dyn = await get(`/dyn?${query({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret, callback: 'pushkit_dyn_1' })}`);
    expect(dyn.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(dyn.body).toBe(`/**/ pushkit_dyn_1({"status":"success","tags":{"plan":"pro","vip":"true","visits":"4"},"segments":[]});`);
  });

  it('stores tags sent by navigator.sendBeacon (a POST with the parameters in the query) when the page hides', async () => {
    const { id, secret } = await insertSubscriber(app);
    const beacon = await app.inject({
      method: 'POST',
      url: `/tags?${query({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret, tags: JSON.stringify({ lastPage: 'checkout' }) })}`,
      headers: { origin: SITE_ORIGIN, 'content-type': 'text/plain;charset=UTF-8' },
      payload: '',
    });
    expect(beacon.json()).toEqual({ status: 'success' });
    const dyn = await get(`/dyn?${query({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret })}`);
    expect(dyn.json().tags).toEqual({ lastPage: 'checkout' });
  });

  it('refuses tags that are not a JSON object of short keys and values', async () => {
    const { id, secret } = await insertSubscriber(app);
    for (const tags of [
      'not json',
      '[1,2]',
      '{}',
      JSON.stringify({ 'bad<key>': 1 }),
      JSON.stringify({ k: 'v'.repeat(300) }),
      JSON.stringify({ k: { nested: 1 } }),
    ]) {
      const reply = await get(`/tags?${query({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret, tags })}`);
      expect(reply.statusCode, tags).toBe(400);
      expect(reply.json().message).toMatch(/^tags: must be a JSON object of 1 to 50 tags/);
    }
    expect((await db.query('SELECT 1 FROM subscriber_tags WHERE subscriber_id = $1', [id])).rows).toHaveLength(0);
  });

  it('/dyn without a subscriber id has no properties; an unknown subscriber is 404', async () => {
    expect((await get(`/dyn?hash=${SITE_HASH}`)).json()).toEqual({ status: 'success', tags: {}, segments: [] });
    const unknown = await get(`/dyn?hash=${SITE_HASH}&subscriberId=nobody`);
    expect(unknown.statusCode).toBe(404);
  });
});

describe('custom dimensions and tracking consent', () => {
  it('getSubscriberAttributes.php answers the requested dimensions (comma list or JSON array), tags as fallback', async () => {
    const { id, secret } = await insertSubscriber(app);
    const put = await app.inject({
      method: 'PUT',
      url: `/api/v1/sites/letters/subscribers/${id}/dimensions`,
      headers: { authorization: `Bearer ${ownerKey}` },
      payload: { tier: 'gold', score: 12 },
    });
    expect(put.json()).toEqual({ status: 'success' });
    await get(
      `/tags?${query({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret, tags: JSON.stringify({ city: 'Leeds', tier: 'tag-loses' }) })}`,
    );
    const comma = await get(
      `/getSubscriberAttributes.php?${query({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret, customDimensions: 'tier,score,city,unset', browser: 'chrome' })}`,
    );
    expect(comma.json()).toEqual({ status: 'success', result: { tier: 'gold', score: '12', city: 'Leeds' } });
    const array = await get(
      `/getSubscriberAttributes.php?${query({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret, customDimensions: '["tier"]' })}`,
    );
    expect(array.json()).toEqual({ status: 'success', result: { tier: 'gold' } });
    const bad = await get(
      `/getSubscriberAttributes.php?${query({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret, customDimensions: 'a;b' })}`,
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/^customDimensions: /);
  });

  it('getSubscriptionClickTrackingPermissionDetails.php answers the stored consent', async () => {
    const allowed = await insertSubscriber(app, { pageClickTrackingPermission: '1' });
    const refused = await insertSubscriber(app, { pageClickTrackingPermission: '0' });
    const url = ({ id, secret }: { id: string; secret: string }) =>
      `/getSubscriptionClickTrackingPermissionDetails.php?${query({ customerHash: SITE_HASH, subscriberId: id, subscriberSecret: secret, browser: 'chrome' })}`;
    expect((await get(url(allowed))).json()).toEqual({ status: 'success', pageClickTrackingPermission: 1 });
    expect((await get(url(refused))).json()).toEqual({ status: 'success', pageClickTrackingPermission: 0 });
    const missing = await get(`/getSubscriptionClickTrackingPermissionDetails.php?subscriberId=${allowed.id}`);
    expect(missing.json()).toEqual({ status: 'failure', message: 'customerHash: is required', code: 'E_PARAM_MISSING' });
  });
});

describe('/c.gif beacon', () => {
  it('answers a real 1x1 GIF and adds or removes the segment membership', async () => {
    const { id, secret, subscription } = await insertSubscriber(app);
    const beacon = (action: string) =>
      get(
        `/c.gif?${query({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret, subscriptionId: subscription.subscriptionId, segment: 'clicked-cta', action })}`,
      );
    const added = await beacon('add-segment');
    expect(added.statusCode).toBe(200);
    expect(added.headers['content-type']).toBe('image/gif');
    expect(added.rawPayload.subarray(0, 6).toString()).toBe('GIF89a');
    expect(added.rawPayload.readUInt16LE(6)).toBe(1);
    expect(added.rawPayload.readUInt16LE(8)).toBe(1);
    expect((await get(`/dyn?hash=${SITE_HASH}&subscriberId=${id}&subscriberSecret=${secret}`)).json().segments).toEqual(['clicked-cta']);
    await beacon('remove-segment');
    expect((await get(`/dyn?hash=${SITE_HASH}&subscriberId=${id}&subscriberSecret=${secret}`)).json().segments).toEqual([]);
    const bad = await beacon('toggle');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('action: must be add-segment or remove-segment');
  });
});

describe('shop orders', () => {
  const order = {
    total: 59.5,
    shipping: 4.5,
    tax: 9.9,
    discount: 5,
    coupon: 'INK5',
    items: [{ pId: 'pen-7', pName: 'Italic nib set', pPrice: 27.5, pQuant: 2, pSku: 'NIB-7', pImgUrl: 'https://letters.example/nib.png' }],
  };

  it('the owner posts an order with the key; getOrderDetails answers it; an unknown order answers like a foreign one', async () => {
    const noKey = await app.inject({ method: 'POST', url: '/api/v1/shopify/orders', payload: { hash: SITE_HASH, orderId: '1001', order } });
    expect(noKey.statusCode).toBe(401);
    const posted = await app.inject({
      method: 'POST',
      url: '/api/v1/shopify/orders',
      headers: { authorization: `Bearer ${ownerKey}` },
      payload: { hash: SITE_HASH, orderId: '1001', order },
    });
    expect(posted.statusCode).toBe(201);
    expect(posted.json()).toEqual({ status: 'success', orderId: '1001', readToken: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) });
    const buyer = await insertSubscriber(app);
    const reply = await get(
      `/api/v1/shopify/getOrderDetails?hash=${SITE_HASH}&orderId=1001&subscriberId=${buyer.id}&subscriberSecret=${buyer.secret}&readToken=${posted.json().readToken}`,
    );
    expect(reply.json()).toEqual({ status: 'success', order: { orderId: '1001', ...order } });
    const unknown = await get(`/api/v1/shopify/getOrderDetails?hash=${SITE_HASH}&orderId=9999`);
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual({ status: 'success', order: { orderId: '9999' } });
  });

  it('refuses an order with a bad field, naming it', async () => {
    const reply = await app.inject({
      method: 'POST',
      url: '/api/v1/shopify/orders',
      headers: { authorization: `Bearer ${ownerKey}` },
      payload: { hash: SITE_HASH, orderId: '1002', order: { ...order, total: -1 } },
    });
    expect(reply.statusCode).toBe(400);
    expect(reply.json().message).toMatch(/^order\.total: /);
  });
});

describe('/notificationEvent', () => {
  it('records shown, clicked and closed reports (JSON or text/plain beacons) into the campaign counts', async () => {
    const { subscription } = await insertSubscriber(app);
    const { campaignId } = await createCampaign(db, site, {
      title: 'New submissions',
      body: 'Three new pieces',
      ttl: 60,
      urgency: 'normal',
    });
    await markDelivered(db, campaignId);
    const report = (event: string, contentType = 'application/json') =>
      app.inject({
        method: 'POST',
        url: '/notificationEvent',
        headers: { 'content-type': contentType, origin: SITE_ORIGIN },
        payload: JSON.stringify({ hash: SITE_HASH, campaignId, endpoint: subscription.endpoint, event }),
      });
    expect((await report('shown')).json()).toEqual({ status: 'success' });
    expect((await report('clicked', 'text/plain;charset=UTF-8')).json()).toEqual({ status: 'success' });
    const bad = await report('opened');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('event: must be shown, clicked or closed');
    const campaign = await app.inject({
      url: `/api/v1/sites/letters/campaigns/${campaignId}`,
      headers: { authorization: `Bearer ${ownerKey}` },
    });
    expect(campaign.json().campaign).toMatchObject({ shown: 1, clicked: 1, closed: 0 });
    const unknownCampaign = await app.inject({
      method: 'POST',
      url: '/notificationEvent',
      payload: { hash: SITE_HASH, campaignId: '987654', event: 'shown' },
    });
    expect(unknownCampaign.statusCode).toBe(404);
  });

  it('counts a report without a click token only from a subscriber the campaign went to, once: forged ones count nothing', async () => {
    const { subscription } = await insertSubscriber(app);
    const { campaignId } = await createCampaign(db, site, { title: 'Inflated?', body: 'No', ttl: 60, urgency: 'normal' });
    await markDelivered(db, campaignId);
    const later = await insertSubscriber(app);
    const report = (fields: Record<string, unknown>) =>
      app.inject({
        method: 'POST',
        url: '/notificationEvent',
        headers: { 'content-type': 'application/json', origin: SITE_ORIGIN },
        payload: JSON.stringify({ hash: SITE_HASH, campaignId, event: 'clicked', ...fields }),
      });
    const forged = [
      await report({}),
      await report({ endpoint: 'https://fcm.googleapis.com/fcm/send/guessed' }),
      // a real subscriber of the site, but one this campaign was not sent to
      await report({ endpoint: later.subscription.endpoint }),
    ];
    for (const answer of forged) {
      expect(answer.statusCode).toBe(403);
      expect(answer.json().code).toBe('E_NOTIFICATION_REPORT_UNPROVEN');
    }
    for (let i = 0; i < 3; i += 1) expect((await report({ endpoint: subscription.endpoint })).statusCode).toBe(200);
    const campaign = await app.inject({
      url: `/api/v1/sites/letters/campaigns/${campaignId}`,
      headers: { authorization: `Bearer ${ownerKey}` },
    });
    expect(campaign.json().campaign).toMatchObject({ clicked: 1 });
  });
});

describe('child window files and health', () => {
  it('serves the built child window page and its stylesheet; an unbuilt site is 404', async () => {
    const page = await get(`/sites/${SITE_HASH}/child-window.html`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('Subscribe to notifications from Letters');
    const unbuilt = await get(`/sites/${OTHER_HASH}/child-window.html`);
    expect(unbuilt.statusCode).toBe(404);
    expect(unbuilt.json().code).toBe('E_SITE_NOT_BUILT');
    const css = await get('/http-v4/css/pc-iframe.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toBe('.pk-child{color:#222}');
  });

  it('/health reports the database and the sites', async () => {
    expect((await get('/health')).json()).toEqual({ status: 'success', database: 'embedded', sites: 2 });
  });
});

describe('CORS: only the site origin may call the site', () => {
  it('echoes the site origin, refuses (403, nothing stored) another origin, and allows requests without Origin', async () => {
    const { id, secret } = await insertSubscriber(app);
    const allowed = await get(`/dyn?hash=${SITE_HASH}&subscriberId=${id}&subscriberSecret=${secret}`, { origin: SITE_ORIGIN });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(SITE_ORIGIN);
    const otherSiteOrigin = await postSync(
      app,
      { hash: SITE_HASH, action: 'unsubscribe-ui', subscriberId: id },
      { origin: 'https://other.example' },
    );
    expect(otherSiteOrigin.statusCode).toBe(403);
    expect(otherSiteOrigin.headers['access-control-allow-origin']).toBeUndefined();
    expect(otherSiteOrigin.json().code).toBe('E_ORIGIN_FORBIDDEN');
    expect(otherSiteOrigin.json().message).toBe(
      `origin: https://other.example may not call site ${SITE_HASH}; its origin is ${SITE_ORIGIN}`,
    );
    const { rows } = await db.query<{ status: string }>('SELECT status FROM subscribers WHERE id = $1', [id]);
    expect(rows[0]!.status).toBe('subscribed');
    // the child window is the provider's own page: its origin is the provider's
    const own = await postSync(
      app,
      { hash: SITE_HASH, action: 'http-sync', subscriberId: id, subscriberSecret: secret, userLanguage: 'de' },
      { origin: 'http://localhost:8787', host: 'localhost:8787' },
    );
    expect(own.statusCode).toBe(200);
    const nextPort = await postSync(
      app,
      { hash: SITE_HASH, action: 'http-sync', subscriberId: id },
      { origin: 'http://localhost:8788', host: 'localhost:8787' },
    );
    expect(nextPort.statusCode).toBe(403);
  });

  it('answers a preflight for a hosted origin and gives no CORS headers to a stranger', async () => {
    const preflight = (origin: string) =>
      app.inject({
        method: 'OPTIONS',
        url: '/notificationEvent',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    const ok = await preflight(SITE_ORIGIN);
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(SITE_ORIGIN);
    expect(ok.headers['access-control-allow-methods']).toBe('GET, POST');
    expect(ok.headers['access-control-allow-headers']).toBe('content-type');
    expect(ok.headers['access-control-max-age']).toBe('600');
    expect(ok.headers.vary).toBe('Origin, Access-Control-Request-Headers');
    expect(ok.headers['content-length']).toBe('0');
    const stranger = await preflight('https://evil.example');
    expect(stranger.statusCode).toBe(404);
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    expect(stranger.headers.vary).toBe('Origin');
    // a preflight that names no method is no preflight
    const methodless = await app.inject({ method: 'OPTIONS', url: '/notificationEvent', headers: { origin: SITE_ORIGIN } });
    expect(methodless.statusCode).toBe(400);
    expect(methodless.body).toBe('Invalid Preflight Request');
  });
});

describe('error replies', () => {
  it('refuses a body over 64 KB with 413', async () => {
    const reply = await postSync(app, { hash: SITE_HASH, action: 'insert', subscriptionId: 'x', filler: 'a'.repeat(70 * 1024) });
    expect(reply.statusCode).toBe(413);
    expect(reply.json()).toEqual({ status: 'failure', message: 'body: larger than 65536 bytes', code: 'E_BODY_TOO_LARGE' });
  });

  it('refuses text with a NUL character with 400 naming the parameter', async () => {
    const reply = await postSync(app, { hash: SITE_HASH, action: 'insert', subscriptionId: 'a\u0000b' });
    expect(reply.statusCode).toBe(400);
    expect(reply.json().message).toBe('subscriptionId: must not contain NUL characters');
  });

  it('answers an unknown path with a JSON 404', async () => {
    const reply = await get('/wp-login.php');
    expect(reply.statusCode).toBe(404);
    expect(reply.json()).toEqual({ status: 'failure', message: 'no such call: GET /wp-login.php', code: 'E_ROUTE_UNKNOWN' });
  });

  it('answers 503 with Retry-After while the database is unavailable', async () => {
    const down = (): never => {
      throw databaseUnavailable(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    };
    const downDb: Database = { kind: 'postgres', query: async () => down(), transaction: async () => down(), close: async () => undefined };
    const downApp = await createApp({ sites: [site], db: downDb });
    const sync = await postSync(downApp, { hash: SITE_HASH, action: 'insert', subscriptionId: 'abc' });
    expect(sync.statusCode).toBe(503);
    expect(sync.headers['retry-after']).toBe('5');
    expect(sync.json()).toEqual({ status: 'failure', message: 'database unavailable, try again later', code: 'E_DATABASE_UNAVAILABLE' });
    expect((await downApp.inject({ url: '/health' })).statusCode).toBe(503);
    await downApp.close();
  });
});
