// Issue 17, items 1 and 3, replayed as written against the provider: a subscriber id (or a uuid planted by a
// link) is no credential; every call that reads or changes one subscriber needs the secret issued to its
// browser, with or without an Origin header. Also the migration of subscribers stored before secrets existed.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { storeShopOrder } from '../../server/shop/shop-orders.ts';
import type { Database } from '../../server/db/database.ts';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { insertSubscriber, newSubscription, postSync, SITE_HASH, SITE_ORIGIN } from '../support/server.ts';

let harness: ProviderHarness;
let db: Database;
let app: FastifyInstance;

beforeAll(async () => {
  harness = await startProviderHarness({ via: 'createApp', service: false });
  ({ app, db } = harness);
});
afterAll(async () => {
  await harness?.close();
});

/** A subscriber as its browser knows it: the id, the secret of the insert reply, and the push subscription. */
async function subscribe(extra: Record<string, string> = {}) {
  const subscriber = await insertSubscriber(app, extra);
  expect(subscriber.secret).toMatch(/^[\w-]{43}$/);
  return subscriber;
}

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });
const endpointOf = async (id: string) =>
  (await db.query<{ endpoint: string | null }>('SELECT endpoint FROM subscribers WHERE id = $1', [id])).rows[0]?.endpoint;
// The attacker's own browser subscription on a real push service (the issue's attacker.example endpoint is
// refused earlier still, by the push-service allowlist: tests/integration/server-push-services.test.ts), so
// what refuses these calls is the missing proof alone.
const ATTACKER_SUBSCRIPTION = JSON.stringify({
  endpoint: 'https://fcm.googleapis.com/fcm/send/attacker-token-2',
  keys: { p256dh: 'BAttackerKeyAttackerKeyAttackerKey', auth: 'attackerAuth' },
});

describe('item 1: subscriber takeover with one link', () => {
  it('the uuid a link planted and linked never reveals the subscriber id, and update without the secret is refused', async () => {
    const victim = await subscribe();
    // The victim's push.js links the URL's uuid, with the victim's own secret.
    const link = await postSync(
      app,
      {
        hash: SITE_HASH,
        action: 'update-subscriberId',
        previousSubscriberId: victim.id,
        subscriberId: 'attacker-uuid',
        subscriberSecret: victim.secret,
      },
      { origin: SITE_ORIGIN },
    );
    expect(link.json()).toMatchObject({ status: 'success' });

    // The attacker, with no Origin header, asks for the subscriber behind its uuid: nothing.
    const lookup = await postSync(app, { hash: SITE_HASH, action: 'get-subscriberid-from-server', uuid: 'attacker-uuid' });
    expect(lookup.statusCode).toBe(404);
    expect(lookup.json()).toMatchObject({ status: 'failure', code: 'E_SYNC_VISITOR_UNKNOWN' });
    expect(lookup.body).not.toContain(victim.id);
    const guessed = await postSync(app, {
      hash: SITE_HASH,
      action: 'get-subscriberid-from-server',
      uuid: 'attacker-uuid',
      subscriberSecret: 'A'.repeat(43),
    });
    expect(guessed.json()).toMatchObject({ code: 'E_SYNC_VISITOR_UNKNOWN' });

    // Knowing the id anyway, the attacker cannot move it to its own endpoint.
    for (const action of ['update', 'update-google-registration-id', 'insert']) {
      const moved = await postSync(app, {
        hash: SITE_HASH,
        action,
        subscriberId: victim.id,
        previousSubscriptionId: 'attacker-guess',
        subscription: ATTACKER_SUBSCRIPTION,
      });
      if (action === 'insert') expect(moved.json().subscriberId).not.toBe(victim.id);
      else expect(moved.statusCode, action).toBe(403);
      if (action !== 'insert') expect(moved.json(), action).toMatchObject({ code: 'E_SUBSCRIBER_SECRET_MISSING' });
    }
    const wrong = await postSync(app, {
      hash: SITE_HASH,
      action: 'update',
      subscriberId: victim.id,
      subscriberSecret: 'B'.repeat(43),
      subscription: ATTACKER_SUBSCRIPTION,
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json()).toMatchObject({ code: 'E_SUBSCRIBER_SECRET_WRONG' });
    expect(await endpointOf(victim.id)).toBe(victim.subscription.endpoint);
  });

  it("unsubscribe-ui, unsubscribe-native and http-sync need the secret; update-subscriberId needs the stored subscriber's", async () => {
    const victim = await subscribe();
    for (const action of ['unsubscribe-ui', 'unsubscribe-native', 'http-sync']) {
      const reply = await postSync(app, { hash: SITE_HASH, action, subscriberId: victim.id });
      expect(reply.statusCode, action).toBe(403);
      expect(reply.json(), action).toMatchObject({ code: 'E_SUBSCRIBER_SECRET_MISSING' });
    }
    const link = await postSync(app, {
      hash: SITE_HASH,
      action: 'update-subscriberId',
      previousSubscriberId: victim.id,
      subscriberId: 'x-uuid',
    });
    expect(link.json()).toMatchObject({ code: 'E_SUBSCRIBER_SECRET_MISSING' });
    const { rows } = await db.query<{ status: string; uuid: string | null }>('SELECT status, uuid FROM subscribers WHERE id = $1', [
      victim.id,
    ]);
    expect(rows[0]).toEqual({ status: 'subscribed', uuid: null });
  });

  it('only the SHA-256 of the secret is stored', async () => {
    const owner = await subscribe();
    const { rows } = await db.query<{ secret_hash: string }>('SELECT secret_hash FROM subscribers WHERE id = $1', [owner.id]);
    expect(rows[0]!.secret_hash).toBe(createHash('sha256').update(owner.secret).digest('hex'));
  });

  it("the subscriber's own browser, with its secret, still updates, links and unsubscribes", async () => {
    const owner = await subscribe();
    const next = newSubscription();
    const update = await postSync(app, {
      hash: SITE_HASH,
      action: 'update',
      subscriberId: owner.id,
      subscriberSecret: owner.secret,
      subscription: next.json,
    });
    expect(update.json()).toEqual({ status: 'success', subscriberId: owner.id });
    const link = await postSync(app, {
      hash: SITE_HASH,
      action: 'update-subscriberId',
      previousSubscriberId: owner.id,
      subscriberId: 'own-uuid',
      subscriberSecret: owner.secret,
    });
    expect(link.json()).toEqual({ status: 'success', subscriberId: owner.id });
    const lookup = await postSync(app, {
      hash: SITE_HASH,
      action: 'get-subscriberid-from-server',
      uuid: 'own-uuid',
      subscriberSecret: owner.secret,
    });
    expect(lookup.json()).toEqual({ status: 'success', subscriberId: owner.id });
    const gone = await postSync(app, { hash: SITE_HASH, action: 'unsubscribe-ui', subscriberId: owner.id, subscriberSecret: owner.secret });
    expect(gone.json()).toEqual({ status: 'success', subscriberId: owner.id });
  });

  it('a browser that lost its storage but holds the push subscription subscribes again and gets a new secret', async () => {
    const owner = await subscribe();
    const again = (await postSync(app, { hash: SITE_HASH, action: 'insert', subscription: owner.subscription.json })).json();
    expect(again).toEqual({ status: 'success', subscriberId: owner.id, subscriberSecret: expect.stringMatching(/^[\w-]{43}$/) });
    expect(again.subscriberSecret).not.toBe(owner.secret);
    const old = await postSync(app, { hash: SITE_HASH, action: 'http-sync', subscriberId: owner.id, subscriberSecret: owner.secret });
    expect(old.json()).toMatchObject({ code: 'E_SUBSCRIBER_SECRET_WRONG' });
  });
});

describe('item 3: the subscriber id is no bearer credential, with or without Origin', () => {
  const calls = (id: string, secret?: string) => {
    const proof = secret ? `&subscriberSecret=${secret}` : '';
    return [
      `/tags?hash=${SITE_HASH}&subscriberId=${id}${proof}&tags=${encodeURIComponent('{"stolen":"1"}')}`,
      `/as?id=junk-seg&customer_hash=${SITE_HASH}&subscriber_list[]=${id}${secret ? `&subscriberSecret[]=${secret}` : ''}`,
      `/c.gif?hash=${SITE_HASH}&subscriberId=${id}${proof}&segment=junk-seg&action=add-segment`,
      `/dyn?hash=${SITE_HASH}&subscriberId=${id}${proof}&callback=steal`,
      `/getSubscriberAttributes.php?hash=${SITE_HASH}&subscriberId=${id}${proof}&customDimensions=tier&callback=steal`,
      `/getSubscriptionClickTrackingPermissionDetails.php?customerHash=${SITE_HASH}&subscriberId=${id}${proof}&callback=steal`,
    ];
  };

  it('tags, segment adds and JSONP reads without the secret are refused (403) and store nothing', async () => {
    const victim = await subscribe();
    for (const url of calls(victim.id)) {
      const reply = await get(url);
      expect(reply.statusCode, url).toBe(403);
      expect(reply.body, url).toContain('E_SUBSCRIBER_SECRET_MISSING');
    }
    for (const url of calls(victim.id, 'C'.repeat(43))) {
      const reply = await get(url, { origin: SITE_ORIGIN });
      expect(reply.statusCode, url).toBe(403);
      expect(reply.body, url).toContain('E_SUBSCRIBER_SECRET_WRONG');
    }
    const post = await app.inject({ method: 'POST', url: calls(victim.id)[0]! });
    expect(post.statusCode).toBe(403);
    const tags = await db.query('SELECT 1 FROM subscriber_tags WHERE subscriber_id = $1', [victim.id]);
    const memberships = await db.query('SELECT 1 FROM segment_memberships WHERE subscriber_id = $1', [victim.id]);
    expect([tags.rows.length, memberships.rows.length]).toEqual([0, 0]);
  });

  it('the same calls with the secret work, from the page (Origin) and as JSONP or beacons (no Origin)', async () => {
    const owner = await subscribe();
    for (const url of calls(owner.id, owner.secret)) {
      const reply = await get(url);
      expect(reply.statusCode, url).toBe(200);
    }
    const dyn = await get(`/dyn?hash=${SITE_HASH}&subscriberId=${owner.id}&subscriberSecret=${owner.secret}`, { origin: SITE_ORIGIN });
    expect(dyn.json()).toEqual({ status: 'success', tags: { stolen: '1' }, segments: ['junk-seg'] });
  });

  it("/as with several subscribers needs each one's secret, in order", async () => {
    const [a, b] = [await subscribe(), await subscribe()];
    const base = `/as?id=pair&customer_hash=${SITE_HASH}&subscriber_list[]=${a.id}&subscriber_list[]=${b.id}`;
    expect((await get(`${base}&subscriberSecret[]=${a.secret}`)).json()).toMatchObject({ code: 'E_SUBSCRIBER_SECRET_MISSING' });
    expect((await get(`${base}&subscriberSecret[]=${b.secret}&subscriberSecret[]=${a.secret}`)).json()).toMatchObject({
      code: 'E_SUBSCRIBER_SECRET_WRONG',
    });
    expect((await get(`${base}&subscriberSecret[]=${a.secret}&subscriberSecret[]=${b.secret}`)).statusCode).toBe(200);
  });
});

describe('item 3: getOrderDetails', () => {
  const ORDER = { total: 40, coupon: 'SECRET10', items: [{ pId: 7, pName: 'Ink pot', pPrice: 20, pQuant: 2 }] };
  async function storeOrder(orderId: string, subscriberId?: string): Promise<void> {
    await storeShopOrder(db, SITE_HASH, orderId, ORDER, subscriberId);
  }
  const read = (orderId: string, proof = '') => get(`/api/v1/shopify/getOrderDetails?hash=${SITE_HASH}&orderId=${orderId}${proof}`);

  it('without proof the reply is the order id only: no items, totals or coupon', async () => {
    await storeOrder('order-anon');
    const reply = await read('order-anon');
    expect(reply.json()).toEqual({ status: 'success', order: { orderId: 'order-anon' } });
    const forged = await read('order-anon', `&subscriberId=someone`);
    expect(forged.statusCode).toBe(404);
    // an order that does not exist answers as one of someone else's: ids cannot be walked
    expect((await read('order-none')).json()).toEqual({ status: 'success', order: { orderId: 'order-none' } });
  });

  it('the subscriber the shop named, with its secret, reads the details; another subscriber gets the id only', async () => {
    const buyer = await subscribe();
    const other = await subscribe();
    await storeOrder('order-named', buyer.id);
    expect((await read('order-named', `&subscriberId=${other.id}&subscriberSecret=${other.secret}`)).json()).toEqual({
      status: 'success',
      order: { orderId: 'order-named' },
    });
    expect((await read('order-named', `&subscriberId=${buyer.id}`)).json()).toMatchObject({ code: 'E_SUBSCRIBER_SECRET_MISSING' });
    expect((await read('order-named', `&subscriberId=${buyer.id}&subscriberSecret=${buyer.secret}`)).json()).toEqual({
      status: 'success',
      order: { orderId: 'order-named', ...ORDER },
    });
  });

  it("an order the shop named no subscriber for is its read token's bearer's, once: a minted subscriber calling first learns nothing", async () => {
    const attacker = await subscribe();
    const buyer = await subscribe();
    const token = await storeShopOrder(db, SITE_HASH, 'order-first', ORDER);
    // anyone can mint a subscriber and prove it; reading first no longer makes the order theirs
    expect((await read('order-first', `&subscriberId=${attacker.id}&subscriberSecret=${attacker.secret}`)).json().order).toEqual({
      orderId: 'order-first',
    });
    expect((await read('order-first', `&readToken=${'x'.repeat(32)}`)).json().order).toEqual({ orderId: 'order-first' });
    const buyerRead = `&subscriberId=${buyer.id}&subscriberSecret=${buyer.secret}`;
    expect((await read('order-first', `${buyerRead}&readToken=${token}`)).json().order).toEqual({ orderId: 'order-first', ...ORDER });
    // the token is spent: a copy of it (the order page's HTML, a log) reads nothing more
    expect((await read('order-first', `&readToken=${token}`)).json().order).toEqual({ orderId: 'order-first' });
    // and the order is the buyer's now, read with its secret alone
    expect((await read('order-first', buyerRead)).json().order).toEqual({ orderId: 'order-first', ...ORDER });
  });
});

describe('subscribers stored before secrets existed (migration)', () => {
  /** A subscriber as the provider stored it before this change: no secret hash. */
  async function legacySubscriber() {
    const stored = await subscribe({ uuid: `legacy-${Date.now()}` });
    await db.query('UPDATE subscribers SET secret_hash = NULL WHERE id = $1', [stored.id]);
    return stored;
  }

  it('the first sync from its browser, proving the endpoint it holds, issues a secret once; then the secret is required', async () => {
    const legacy = await legacySubscriber();
    const first = await postSync(app, {
      hash: SITE_HASH,
      action: 'http-sync',
      subscriberId: legacy.id,
      subscriptionEndPoint: legacy.subscription.endpoint,
    });
    expect(first.json()).toEqual({ status: 'success', subscriberId: legacy.id, subscriberSecret: expect.stringMatching(/^[\w-]{43}$/) });
    const secret = first.json().subscriberSecret as string;
    const again = await postSync(app, {
      hash: SITE_HASH,
      action: 'http-sync',
      subscriberId: legacy.id,
      subscriptionEndPoint: legacy.subscription.endpoint,
    });
    expect(again.json()).toMatchObject({ code: 'E_SUBSCRIBER_SECRET_MISSING' });
    const proven = await postSync(app, { hash: SITE_HASH, action: 'http-sync', subscriberId: legacy.id, subscriberSecret: secret });
    expect(proven.json()).toEqual({ status: 'success', subscriberId: legacy.id });
    expect((await get(`/dyn?hash=${SITE_HASH}&subscriberId=${legacy.id}&subscriberSecret=${secret}`)).statusCode).toBe(200);
  });

  it("without its endpoint, a legacy subscriber's id alone gets no secret and changes nothing", async () => {
    const legacy = await legacySubscriber();
    const attempts: Record<string, string>[] = [
      { action: 'http-sync' },
      { action: 'unsubscribe-ui' },
      { action: 'update', subscription: ATTACKER_SUBSCRIPTION },
      { action: 'http-sync', subscriptionEndPoint: 'https://fcm.googleapis.com/fcm/send/attacker-token-2' },
    ];
    for (const fields of attempts) {
      const reply = await postSync(app, { hash: SITE_HASH, subscriberId: legacy.id, ...fields });
      expect(reply.statusCode, JSON.stringify(fields)).toBe(403);
      expect(reply.body).not.toContain('subscriberSecret"');
    }
    expect((await get(`/tags?hash=${SITE_HASH}&subscriberId=${legacy.id}&tags=%7B%22a%22%3A1%7D`)).statusCode).toBe(403);
    const { rows } = await db.query<{ status: string; secret_hash: string | null }>(
      'SELECT status, secret_hash FROM subscribers WHERE id = $1',
      [legacy.id],
    );
    expect(rows[0]).toEqual({ status: 'subscribed', secret_hash: null });
    expect(await endpointOf(legacy.id)).toBe(legacy.subscription.endpoint);
  });

  it('the service worker moving a renewed registration proves it by the previous registration id, without a secret', async () => {
    const owner = await subscribe();
    const next = newSubscription();
    const moved = await postSync(app, {
      hash: SITE_HASH,
      action: 'update-google-registration-id',
      previousSubscriptionId: owner.subscription.subscriptionId,
      subscriptionId: next.subscriptionId,
      subscription: next.json,
    });
    expect(moved.json()).toEqual({ status: 'success', subscriberId: owner.id });
    // the page's secret still holds after the worker's move
    const page = await postSync(app, { hash: SITE_HASH, action: 'http-sync', subscriberId: owner.id, subscriberSecret: owner.secret });
    expect(page.json()).toEqual({ status: 'success', subscriberId: owner.id });
  });

  it('a legacy page after its worker moved the registration proves the new subscription and gets a secret', async () => {
    const legacy = await legacySubscriber();
    const next = newSubscription();
    const fields = {
      hash: SITE_HASH,
      action: 'update-google-registration-id',
      previousSubscriptionId: legacy.subscription.subscriptionId,
      subscriptionId: next.subscriptionId,
      subscription: next.json,
    };
    expect((await postSync(app, fields)).json()).toMatchObject({ status: 'success', subscriberId: legacy.id });
    // the page, still on the old registration id, with its subscriber id and the new subscription
    const page = (await postSync(app, { ...fields, subscriberId: legacy.id })).json();
    expect(page).toEqual({ status: 'success', subscriberId: legacy.id, subscriberSecret: expect.stringMatching(/^[\w-]{43}$/) });
  });
});
