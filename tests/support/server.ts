// Shared by the server-*.test.ts files: a hosted test site, an app over a database, form posts of the sync
// call, and the sync action tests that run on PGlite and on a real PostgreSQL.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConfigText } from '../../config/load-config.ts';
import { createApp } from '../../server/http/app.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import type { HostedSite } from '../../server/sites.ts';
import { seedMigratedDatabase } from './migrated-database.ts';

export const SITE_ORIGIN = 'https://letters.example';
export const SITE_HASH = 'letters-hash-01';
const VAPID_PUBLIC_KEY = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';

export function testSite(
  overrides: { name?: string; hash?: string; origin?: string; childWindowOrigin?: string; builtDir?: string } = {},
): HostedSite {
  const name = overrides.name ?? 'letters';
  const loaded = parseConfigText(
    `${name}.json`,
    JSON.stringify({
      hash: overrides.hash ?? SITE_HASH,
      companyName: 'Letters',
      origin: overrides.origin ?? SITE_ORIGIN,
      serverSyncUrl: 'https://push.letters.example',
      ...(overrides.childWindowOrigin ? { childWindowOrigin: overrides.childWindowOrigin } : {}),
      vapidPublicKey: VAPID_PUBLIC_KEY,
    }),
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  return { name, hash: loaded.config.hash, file: `${name}.json`, config: loaded.config, builtDir: overrides.builtDir ?? '/nonexistent' };
}

export async function tempDir(prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export async function openTempDatabase(): Promise<{ db: Database; dataDir: string; cleanup: () => Promise<void> }> {
  const dir = await tempDir('pushkit-db-');
  const dataDir = join(dir.path, 'db');
  await seedMigratedDatabase(dataDir);
  const db = await openDatabase({ dataDir });
  return {
    db,
    dataDir,
    cleanup: async () => {
      await db.close().catch(() => undefined);
      await dir.remove();
    },
  };
}

let counter = 0;
/** A fresh push subscription (endpoint and keys) for each call. */
export function newSubscription() {
  counter += 1;
  const token = `tok${Date.now().toString(36)}${counter}`;
  return {
    endpoint: `https://fcm.googleapis.com/fcm/send/${token}`,
    subscriptionId: token,
    json: JSON.stringify({
      endpoint: `https://fcm.googleapis.com/fcm/send/${token}`,
      expirationTime: null,
      keys: { p256dh: `BP${token}key`, auth: `au${counter}th` },
    }),
  };
}

export function postSync(
  app: FastifyInstance,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/syncSubscriptionAction.php',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

export async function insertSubscriber(
  app: FastifyInstance,
  extra: Record<string, string> = {},
): Promise<{ id: string; secret: string; subscription: ReturnType<typeof newSubscription> }> {
  const subscription = newSubscription();
  const reply = await postSync(app, {
    hash: SITE_HASH,
    action: 'insert',
    subscription: subscription.json,
    subscriptionId: subscription.subscriptionId,
    ...extra,
  });
  const body = reply.json() as { status: string; subscriberId: string; subscriberSecret: string };
  if (body.status !== 'success') throw new Error(reply.body);
  return { id: body.subscriberId, secret: body.subscriberSecret, subscription };
}

async function subscriberRows(db: Database, where = 'TRUE', params: unknown[] = []) {
  return (await db.query<Record<string, unknown>>(`SELECT * FROM subscribers WHERE ${where} ORDER BY created_at`, params)).rows;
}

/** Every sync action of spec section 4, against the database `open` gives. */
export function defineSyncTests(label: string, open: () => Promise<{ db: Database; cleanup: () => Promise<void> }>, skip = false): void {
  describe.skipIf(skip)(`sync actions (${label})`, () => {
    let db: Database;
    let cleanup: () => Promise<void>;
    let app: FastifyInstance;

    beforeAll(async () => {
      ({ db, cleanup } = await open());
      app = await createApp({ sites: [testSite()], db });
    });
    afterAll(async () => {
      await app?.close();
      await cleanup?.();
    });

    it('insert creates a subscriber with every payload field and replies its id', async () => {
      const subscription = newSubscription();
      const reply = await postSync(app, {
        hash: SITE_HASH,
        action: 'insert',
        subscription: subscription.json,
        subscriptionId: subscription.subscriptionId,
        subscriptionEndPoint: subscription.endpoint,
        browserType: 'chrome',
        userLanguage: 'en-GB',
        userTimezone: 'Europe/London',
        userTimezoneOffset: '-60',
        pageClickTrackingPermission: '1',
        origin: SITE_ORIGIN,
        subscriptionPageUrl: `${SITE_ORIGIN}/submissions/42`,
        uuid: 'visitor-uuid-1',
      });
      expect(reply.statusCode).toBe(200);
      const body = reply.json();
      expect(body).toEqual({
        status: 'success',
        subscriberId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        subscriberSecret: expect.stringMatching(/^[\w-]{43}$/),
      });
      const [row] = await subscriberRows(db, 'id = $1', [body.subscriberId]);
      expect(row).toMatchObject({
        site_hash: SITE_HASH,
        status: 'subscribed',
        endpoint: subscription.endpoint,
        subscription_id: subscription.subscriptionId,
        p256dh: JSON.parse(subscription.json).keys.p256dh,
        auth: JSON.parse(subscription.json).keys.auth,
        browser_type: 'chrome',
        language: 'en-GB',
        timezone: 'Europe/London',
        timezone_offset: -60,
        page_click_tracking_permission: 1,
        origin: SITE_ORIGIN,
        subscription_page_url: `${SITE_ORIGIN}/submissions/42`,
        uuid: 'visitor-uuid-1',
      });
      expect(row!.subscription).toEqual(JSON.parse(subscription.json));
    });

    it('a repeated insert, insert-failed or concurrent inserts never duplicate the subscriber', async () => {
      const subscription = newSubscription();
      const fields = { hash: SITE_HASH, subscription: subscription.json, subscriptionId: subscription.subscriptionId };
      const first = (await postSync(app, { ...fields, action: 'insert' })).json();
      const again = (await postSync(app, { ...fields, action: 'insert' })).json();
      const retried = (await postSync(app, { ...fields, action: 'insert-failed' })).json();
      const concurrent = await Promise.all(Array.from({ length: 6 }, () => postSync(app, { ...fields, action: 'insert' })));
      expect(again.subscriberId).toBe(first.subscriberId);
      expect(retried).toEqual({ status: 'success', subscriberId: first.subscriberId, subscriberSecret: expect.any(String) });
      for (const reply of concurrent) expect(reply.json().subscriberId).toBe(first.subscriberId);
      expect(await subscriberRows(db, 'endpoint = $1', [subscription.endpoint])).toHaveLength(1);
    });

    it('concurrent first inserts of one new subscription create exactly one subscriber', async () => {
      const subscription = newSubscription();
      const fields = { hash: SITE_HASH, action: 'insert', subscription: subscription.json, subscriptionId: subscription.subscriptionId };
      const replies = await Promise.all(Array.from({ length: 8 }, () => postSync(app, fields)));
      const ids = new Set(replies.map((reply) => reply.json().subscriberId));
      expect(ids.size).toBe(1);
      expect(await subscriberRows(db, 'endpoint = $1', [subscription.endpoint])).toHaveLength(1);
    });

    it('concurrent syncs of several browsers are each answered as if alone; one the database refuses fails only itself', async () => {
      const known = await insertSubscriber(app);
      const [added, lost, gone] = [newSubscription(), newSubscription(), newSubscription()];
      const replies = await Promise.all([
        postSync(app, { hash: SITE_HASH, action: 'insert', subscription: added.json, subscriptionId: added.subscriptionId }),
        postSync(app, {
          hash: SITE_HASH,
          action: 'update',
          subscriberId: known.id,
          subscriberSecret: 'A'.repeat(43),
          subscription: lost.json,
        }),
        postSync(app, {
          hash: SITE_HASH,
          action: 'http-sync',
          subscriberId: known.id,
          subscriberSecret: known.secret,
          userLanguage: 'de-DE',
        }),
        postSync(app, { hash: SITE_HASH, action: 'update', subscriberId: 'no-such-id', subscription: gone.json }),
      ]);
      const [inserted, wrong, synced, unknown] = replies.map((reply) => reply.json());
      expect(inserted).toEqual({ status: 'success', subscriberId: expect.any(String), subscriberSecret: expect.any(String) });
      expect(wrong).toMatchObject({ status: 'failure', code: 'E_SUBSCRIBER_SECRET_WRONG' });
      expect(synced).toEqual({ status: 'success', subscriberId: known.id });
      expect(unknown).toMatchObject({ status: 'failure', code: 'E_SYNC_NOT_SUBSCRIBED' });
      expect(await subscriberRows(db, 'endpoint = $1', [added.endpoint])).toMatchObject([{ id: inserted.subscriberId }]);
      expect(await subscriberRows(db, 'id = $1', [known.id])).toMatchObject([{ endpoint: known.subscription.endpoint, language: 'de-DE' }]);
      expect(await subscriberRows(db, 'endpoint IN ($1, $2)', [lost.endpoint, gone.endpoint])).toEqual([]);

      // any statement error of one action (a trigger stands for it): the other inserts are stored, this one answered
      // 500; and its batch costs a few statements, not one per action (anyone can mint a refused action)
      await db.query(`CREATE FUNCTION refuse_xx() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.language = 'xx-XX' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`);
      await db.query('CREATE TRIGGER refuse_xx BEFORE INSERT ON subscribers FOR EACH ROW EXECUTE FUNCTION refuse_xx()');
      const statements = vi.spyOn(db, 'query');
      try {
        const [kept, refused] = [Array.from({ length: 5 }, () => newSubscription()), newSubscription()];
        const replies = await Promise.all([
          ...kept.map((one) =>
            postSync(app, { hash: SITE_HASH, action: 'insert', subscription: one.json, subscriptionId: one.subscriptionId }),
          ),
          postSync(app, {
            hash: SITE_HASH,
            action: 'insert',
            subscription: refused.json,
            subscriptionId: refused.subscriptionId,
            userLanguage: 'xx-XX',
          }),
        ]);
        const refusedReply = replies.pop()!;
        expect(replies.map((reply) => reply.statusCode)).toEqual(kept.map(() => 200));
        expect(await subscriberRows(db, 'endpoint = $1', [kept[0]!.endpoint])).toMatchObject([{ id: replies[0]!.json().subscriberId }]);
        expect((await subscriberRows(db, 'endpoint = ANY($1)', [kept.map((one) => one.endpoint)])).length).toBe(kept.length);
        expect([refusedReply.statusCode, refusedReply.json().code]).toEqual([500, 'E_INTERNAL']);
        expect(await subscriberRows(db, 'endpoint = $1', [refused.endpoint])).toEqual([]);
        const batches = statements.mock.calls.filter(([sql]) => sql.includes('pushkit_sync_batch')).length;
        expect(batches).toBeLessThanOrEqual(4);
      } finally {
        statements.mockRestore();
        await db.query('DROP TRIGGER refuse_xx ON subscribers');
        await db.query('DROP FUNCTION refuse_xx()');
      }
    });

    it('insert-failed with only a subscription id (Safari) stores and finds the subscriber by it', async () => {
      const token = `safari${Date.now()}`;
      const first = (
        await postSync(app, { hash: SITE_HASH, action: 'insert-failed', subscriptionId: token, browserType: 'safari' })
      ).json();
      const again = (await postSync(app, { hash: SITE_HASH, action: 'insert', subscriptionId: token })).json();
      expect(first.status).toBe('success');
      expect(again.subscriberId).toBe(first.subscriberId);
    });

    it('insert without an endpoint or subscription id fails and stores nothing', async () => {
      const before = (await subscriberRows(db)).length;
      const reply = await postSync(app, { hash: SITE_HASH, action: 'insert' });
      expect(reply.json()).toEqual({
        status: 'failure',
        message: 'subscription: an endpoint or a subscriptionId is required',
        code: 'E_PARAM_INVALID',
      });
      expect(await subscriberRows(db)).toHaveLength(before);
    });

    it('update moves the subscriber to a new endpoint and keys', async () => {
      const { id, secret, subscription } = await insertSubscriber(app);
      const next = newSubscription();
      const reply = await postSync(app, {
        hash: SITE_HASH,
        action: 'update',
        subscriberId: id,
        subscriberSecret: secret,
        subscription: next.json,
        subscriptionId: next.subscriptionId,
      });
      expect(reply.json()).toEqual({ status: 'success', subscriberId: id });
      const [row] = await subscriberRows(db, 'id = $1', [id]);
      expect(row).toMatchObject({ endpoint: next.endpoint, subscription_id: next.subscriptionId, status: 'subscribed' });
      expect(await subscriberRows(db, 'endpoint = $1', [subscription.endpoint])).toHaveLength(0);
    });

    it('update of an unknown subscriber fails', async () => {
      const next = newSubscription();
      const reply = await postSync(app, { hash: SITE_HASH, action: 'update', subscriberId: 'no-such-id', subscription: next.json });
      expect(reply.json()).toEqual({
        status: 'failure',
        message: 'subscriberId: no subscriber to update; send insert',
        code: 'E_SYNC_NOT_SUBSCRIBED',
      });
    });

    it('update-google-registration-id moves the subscriber from the previous subscription id to the new one', async () => {
      const { id, subscription } = await insertSubscriber(app);
      const next = newSubscription();
      const reply = await postSync(app, {
        hash: SITE_HASH,
        action: 'update-google-registration-id',
        previousSubscriptionId: subscription.subscriptionId,
        subscriptionId: next.subscriptionId,
        subscription: next.json,
      });
      expect(reply.json()).toEqual({ status: 'success', subscriberId: id });
      const [row] = await subscriberRows(db, 'id = $1', [id]);
      expect(row).toMatchObject({
        subscription_id: next.subscriptionId,
        endpoint: next.endpoint,
        p256dh: JSON.parse(next.json).keys.p256dh,
      });
      expect(await subscriberRows(db, 'subscription_id = $1', [subscription.subscriptionId])).toHaveLength(0);
      // the old registration now finds nothing, the new one finds the same subscriber
      const lookup = await postSync(app, { hash: SITE_HASH, action: 'get-subscriberid-from-server', subscriptionId: next.subscriptionId });
      expect(lookup.json()).toMatchObject({ status: 'success', subscriberId: id });
    });

    it('update-google-registration-id needs a previousSubscriptionId that exists', async () => {
      const next = newSubscription();
      const missing = await postSync(app, { hash: SITE_HASH, action: 'update-google-registration-id', subscription: next.json });
      expect(missing.json()).toEqual({ status: 'failure', message: 'previousSubscriptionId: is required', code: 'E_PARAM_MISSING' });
      const unknown = await postSync(app, {
        hash: SITE_HASH,
        action: 'update-google-registration-id',
        previousSubscriptionId: 'never-seen',
        subscription: next.json,
      });
      expect(unknown.json()).toEqual({
        status: 'failure',
        message: 'previousSubscriptionId: no subscriber has this subscription id',
        code: 'E_SYNC_SUBSCRIPTION_UNKNOWN',
      });
    });

    it('update-google-registration-id with the same subscription id and a new endpoint (the previous id is the current one) moves the endpoint', async () => {
      const { id, subscription } = await insertSubscriber(app);
      const endpoint = subscription.endpoint.replace(/^https:\/\/[^/]+/, 'https://updates.push.services.mozilla.com');
      const reply = await postSync(app, {
        hash: SITE_HASH,
        action: 'update-google-registration-id',
        previousSubscriptionId: subscription.subscriptionId,
        subscriptionId: subscription.subscriptionId,
        subscriptionEndPoint: endpoint,
      });
      expect(reply.json()).toEqual({ status: 'success', subscriberId: id });
      expect((await subscriberRows(db, 'id = $1', [id]))[0]).toMatchObject({ endpoint, subscription_id: subscription.subscriptionId });
    });

    it("block (push-kit's action) stores one block event; a named subscriber counts only with its secret", async () => {
      const { id, secret } = await insertSubscriber(app);
      const blocks = async () =>
        (
          await db.query<{ subscriber_id: string | null; detail: { uuid: string | null } }>(
            `SELECT subscriber_id, detail FROM events WHERE kind = 'block' ORDER BY id`,
          )
        ).rows;
      const before = (await blocks()).length;
      const visitor = await postSync(app, { hash: SITE_HASH, action: 'block', uuid: 'visitor-uuid-9', browserType: 'chrome' });
      expect(visitor.json()).toEqual({ status: 'success', subscriberId: '' });
      // someone else's subscriber id without its secret: stored as the visitor's event, never attributed
      const forged = await postSync(app, { hash: SITE_HASH, action: 'block', uuid: 'attacker', subscriberId: id });
      expect(forged.json()).toEqual({ status: 'success', subscriberId: '' });
      const proven = await postSync(app, { hash: SITE_HASH, action: 'block', subscriberId: id, subscriberSecret: secret });
      expect(proven.json()).toEqual({ status: 'success', subscriberId: id });
      expect((await blocks()).slice(before)).toEqual([
        { subscriber_id: null, detail: { uuid: 'visitor-uuid-9', browserType: 'chrome' } },
        { subscriber_id: null, detail: { uuid: 'attacker', browserType: null } },
        { subscriber_id: id, detail: { uuid: null, browserType: null } },
      ]);
      // the subscriber is not touched by a block
      expect((await subscriberRows(db, 'id = $1', [id]))[0]).toMatchObject({ status: 'subscribed' });
      const nameless = await postSync(app, { hash: SITE_HASH, action: 'block' });
      expect(nameless.statusCode).toBe(400);
      expect(nameless.json()).toMatchObject({ message: 'uuid: a uuid or subscriberId is required' });
    });

    it('placeholder subscriber ids (-1, undefined, null) are refused as "Invalid Subscriber Id"', async () => {
      for (const placeholder of ['-1', 'undefined', 'null', 'NULL', '0']) {
        const reply = await postSync(app, { hash: SITE_HASH, action: 'http-sync', subscriberId: placeholder });
        expect(reply.statusCode, placeholder).toBe(400);
        expect(reply.json().message, placeholder).toBe('subscriberId: Invalid Subscriber Id (a placeholder for no id)');
      }
    });

    it('http-sync updates language and time zone only', async () => {
      const { id, secret, subscription } = await insertSubscriber(app, { userLanguage: 'en' });
      const reply = await postSync(app, {
        hash: SITE_HASH,
        action: 'http-sync',
        subscriberId: id,
        subscriberSecret: secret,
        userLanguage: 'fr-FR',
        userTimezone: 'Europe/Paris',
        userTimezoneOffset: '-120',
      });
      expect(reply.json()).toEqual({ status: 'success', subscriberId: id });
      const [row] = await subscriberRows(db, 'id = $1', [id]);
      expect(row).toMatchObject({ language: 'fr-FR', timezone: 'Europe/Paris', timezone_offset: -120, endpoint: subscription.endpoint });
    });

    it('unsubscribe-ui and unsubscribe-native set the status unsubscribed and record why', async () => {
      const ui = await insertSubscriber(app);
      const native = await insertSubscriber(app);
      expect(
        (await postSync(app, { hash: SITE_HASH, action: 'unsubscribe-ui', subscriberId: ui.id, subscriberSecret: ui.secret })).json(),
      ).toEqual({
        status: 'success',
        subscriberId: ui.id,
      });
      const byId = await postSync(app, {
        hash: SITE_HASH,
        action: 'unsubscribe-native',
        subscriberId: native.id,
        subscriberSecret: native.secret,
      });
      expect(byId.json()).toEqual({ status: 'success', subscriberId: native.id });
      const rows = await subscriberRows(db, 'id = ANY($1::text[])', [[ui.id, native.id]]);
      expect(rows.map((row) => row.status)).toEqual(['unsubscribed', 'unsubscribed']);
      const events = await db.query<{ subscriber_id: string; kind: string }>(
        `SELECT subscriber_id, kind FROM events WHERE kind LIKE 'unsubscribe%' AND subscriber_id = ANY($1::text[]) ORDER BY id`,
        [[ui.id, native.id]],
      );
      expect(events.rows).toEqual([
        { subscriber_id: ui.id, kind: 'unsubscribe-ui' },
        { subscriber_id: native.id, kind: 'unsubscribe-native' },
      ]);
      // subscribing again on the same endpoint brings the same subscriber back
      const back = await postSync(app, { hash: SITE_HASH, action: 'insert', subscription: ui.subscription.json });
      expect(back.json().subscriberId).toBe(ui.id);
      expect((await subscriberRows(db, 'id = $1', [ui.id]))[0]!.status).toBe('subscribed');
    });

    it('get-subscriberid-from-server finds the subscriber by uuid with its secret, or by subscription, and fails for a stranger', async () => {
      const { id, secret, subscription } = await insertSubscriber(app, { uuid: 'uuid-get-1' });
      expect(
        (
          await postSync(app, { hash: SITE_HASH, action: 'get-subscriberid-from-server', uuid: 'uuid-get-1', subscriberSecret: secret })
        ).json(),
      ).toEqual({
        status: 'success',
        subscriberId: id,
      });
      const uuidAlone = await postSync(app, { hash: SITE_HASH, action: 'get-subscriberid-from-server', uuid: 'uuid-get-1' });
      expect(uuidAlone.json()).toMatchObject({ code: 'E_SYNC_VISITOR_UNKNOWN' });
      const bySubscription = await postSync(app, {
        hash: SITE_HASH,
        action: 'get-subscriberid-from-server',
        subscriptionId: subscription.subscriptionId,
      });
      expect(bySubscription.json().subscriberId).toBe(id);
      const stranger = await postSync(app, { hash: SITE_HASH, action: 'get-subscriberid-from-server', uuid: 'uuid-nobody' });
      expect(stranger.json()).toEqual({
        status: 'failure',
        message: 'uuid: no subscriber for this visitor (nor for its subscription)',
        code: 'E_SYNC_VISITOR_UNKNOWN',
      });
    });

    it('update-subscriberId links the visitor uuid to the stored subscriber', async () => {
      const { id, secret } = await insertSubscriber(app);
      const reply = await postSync(app, {
        hash: SITE_HASH,
        action: 'update-subscriberId',
        browserType: 'firefox',
        previousSubscriberId: id,
        subscriberId: 'uuid-from-url-7',
        subscriberSecret: secret,
      });
      expect(reply.json()).toEqual({ status: 'success', subscriberId: id });
      const lookup = await postSync(app, {
        hash: SITE_HASH,
        action: 'get-subscriberid-from-server',
        uuid: 'uuid-from-url-7',
        subscriberSecret: secret,
      });
      expect(lookup.json()).toEqual({ status: 'success', subscriberId: id });
      const unknown = await postSync(app, {
        hash: SITE_HASH,
        action: 'update-subscriberId',
        previousSubscriberId: 'nobody',
        subscriberId: 'uuid-x',
      });
      expect(unknown.json()).toEqual({
        status: 'failure',
        message: 'previousSubscriberId: no subscriber with this id',
        code: 'E_SYNC_SUBSCRIBER_UNKNOWN',
      });
    });

    it('replies JSONP when a callback is named, and refuses a callback that is not an identifier', async () => {
      const subscription = newSubscription();
      const reply = await postSync(app, { hash: SITE_HASH, action: 'insert', subscription: subscription.json, callback: 'pushkit._cb.r1' });
      expect(reply.headers['content-type']).toBe('application/javascript; charset=utf-8');
      const match = /^\/\*\*\/ pushkit\._cb\.r1\((.*)\);$/.exec(reply.body);
      expect(JSON.parse(match![1]!)).toEqual({ status: 'success', subscriberId: expect.any(String), subscriberSecret: expect.any(String) });
      const other = newSubscription();
      const bad = await postSync(app, { hash: SITE_HASH, action: 'insert', subscription: other.json, callback: 'alert(1)//' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toEqual({
        status: 'failure',
        message: 'callback: must be a JavaScript identifier or dotted identifier path',
        code: 'E_CALLBACK_INVALID',
      });
      expect(await subscriberRows(db, 'endpoint = $1', [other.endpoint])).toHaveLength(0);
    });

    it('an unknown hash is 404 and a bad parameter is 400 naming it; nothing is stored', async () => {
      const subscription = newSubscription();
      const unknown = await postSync(app, { hash: 'not-a-site', action: 'insert', subscription: subscription.json });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ status: 'failure', message: 'hash: unknown site hash', code: 'E_SITE_UNKNOWN' });
      const cases: [Record<string, string>, string][] = [
        [{ action: 'subscribe' }, 'action: must be one of insert, insert-failed'],
        [{ userTimezoneOffset: 'west' }, 'userTimezoneOffset: must be an integer'],
        [{ subscription: '{not json' }, 'subscription: must be the PushSubscription as JSON'],
        [{ subscriptionEndPoint: 'javascript:alert(1)' }, 'subscriptionEndPoint: must be an absolute http(s) URL'],
        [{ userLanguage: '<script>' }, 'userLanguage: must be a language tag'],
        [{ pageClickTrackingPermission: 'maybe' }, 'pageClickTrackingPermission: must be 0, 1, true or false'],
        [{ subscriberId: 'x'.repeat(200) }, 'subscriberId: must be at most 128 characters'],
        [{ hash: '' }, 'hash: must be 1 to 64 letters'],
      ];
      for (const [override, message] of cases) {
        const reply = await postSync(app, { hash: SITE_HASH, action: 'insert', subscription: subscription.json, ...override });
        expect(reply.statusCode, JSON.stringify(override)).toBe(400);
        expect(reply.json()).toMatchObject({ status: 'failure', code: 'E_PARAM_INVALID' });
        expect(reply.json().message).toContain(message);
      }
      const missingAction = await postSync(app, { hash: SITE_HASH, subscription: subscription.json });
      expect(missingAction.json()).toMatchObject({ code: 'E_PARAM_MISSING', message: 'action: is required' });
      expect(await subscriberRows(db, 'endpoint = $1', [subscription.endpoint])).toHaveLength(0);
    });
  });
}
