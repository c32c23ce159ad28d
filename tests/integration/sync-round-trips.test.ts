// The sync endpoint's round trips to PostgreSQL (issue 34): each statement is one, so the actions the load is
// made of are one statement each, through the whole route (the welcome automation's switch included). Counted at
// the pg client, with the replies and the stored row checked on the way. Concurrent browsers' actions go together
// as one statement (server/sync/sync-batch.ts; their answers: tests/support/server.ts, concurrent syncs).
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createApp } from '../../server/http/app.ts';
import { PushServiceAllowlist } from '../../server/push/push-services.ts';
import { secretHash } from '../../server/subscribers/subscriber-secret.ts';
import { syncBatcher } from '../../server/sync/sync-batch.ts';
import { postSync, SITE_HASH, testSite } from '../support/server.ts';
import { openThrowawayPostgres } from '../support/throwaway-postgres.ts';

const url = process.env.PUSHKIT_TEST_DATABASE_URL;
const { Client } = createRequire(import.meta.url)('pg') as typeof pg;
const KEYS = {
  p256dh: 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s',
  auth: 'oMI2KGm4uNsKFv_2oqmNvg',
};

describe.skipIf(!url)('sync actions on PostgreSQL', () => {
  let stack: Awaited<ReturnType<typeof openThrowawayPostgres>>;
  let app: FastifyInstance;
  let statements = 0;
  const original = Client.prototype.query;
  beforeAll(async () => {
    stack = await openThrowawayPostgres(url!);
    app = await createApp({
      sites: [testSite()],
      db: stack.db,
      rateLimit: false,
      pushServices: PushServiceAllowlist.fromSetting(['https://push.example']),
    });
    // started before counting: its start prepares the batch statement on a few connections (sync-batch.ts)
    await app.ready();
    Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      statements += 1;
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
  });
  afterAll(async () => {
    Client.prototype.query = original;
    await app?.close();
    await stack?.cleanup();
  });

  async function sync(fields: Record<string, string>) {
    statements = 0;
    const response = await postSync(app, { hash: SITE_HASH, browserType: 'chrome', ...fields });
    return { status: response.statusCode, reply: response.json() as Record<string, string>, statements };
  }
  const subscription = (n: number) => JSON.stringify({ endpoint: `https://push.example/send/round-trips-${n}`, keys: KEYS });

  it('an insert, an update and an http-sync with its secret are one statement each; a wrong secret is still refused', async () => {
    const inserted = await sync({ action: 'insert', subscription: subscription(1), subscriptionId: 'rt-1', userLanguage: 'en-US' });
    expect(inserted.reply).toMatchObject({ status: 'success', subscriberId: expect.any(String), subscriberSecret: expect.any(String) });
    expect(inserted.statements).toBe(1); // pushkit_sync_batch: lock, look-up, subscriber + event + webhook messages, the welcome's switch
    const { subscriberId, subscriberSecret } = inserted.reply as { subscriberId: string; subscriberSecret: string };

    // the browser that lost its storage subscribes again: the same subscriber, proven by its subscription, a new secret
    const again = await sync({ action: 'insert', subscription: subscription(1), subscriptionId: 'rt-1' });
    expect(again.reply).toMatchObject({ status: 'success', subscriberId, subscriberSecret: expect.any(String) });
    expect(again.reply.subscriberSecret).not.toBe(subscriberSecret);
    expect(again.statements).toBe(1);
    const secret = again.reply.subscriberSecret!;

    const updated = await sync({
      action: 'update',
      subscriberId,
      subscriberSecret: secret,
      subscription: subscription(2),
      subscriptionId: 'rt-2',
    });
    expect(updated.reply).toEqual({ status: 'success', subscriberId });
    expect(updated.statements).toBe(1);

    const synced = await sync({ action: 'http-sync', subscriberId, subscriberSecret: secret, userLanguage: 'fr-FR' });
    expect(synced.reply).toEqual({ status: 'success', subscriberId });
    expect(synced.statements).toBe(1);

    const wrongUpdate = await sync({ action: 'update', subscriberId, subscriberSecret: subscriberSecret, subscription: subscription(3) });
    expect(wrongUpdate.reply).toMatchObject({ status: 'failure', code: 'E_SUBSCRIBER_SECRET_WRONG' });
    expect(wrongUpdate.statements).toBe(1);
    const refused = await sync({ action: 'http-sync', subscriberId, subscriberSecret: 'A'.repeat(43), userLanguage: 'de-DE' });
    expect(refused.reply).toMatchObject({ status: 'failure', code: 'E_SUBSCRIBER_SECRET_WRONG' });
    const { rows } = await stack.db.query<{ language: string; endpoint: string }>(
      'SELECT language, endpoint FROM subscribers WHERE id = $1',
      [subscriberId],
    );
    expect(rows).toEqual([{ language: 'fr-FR', endpoint: 'https://push.example/send/round-trips-2' }]);
  });

  it('concurrent syncs of several browsers go together, fewer statements than actions, each with its own answer', async () => {
    const inserted = await sync({ action: 'insert', subscription: subscription(20), subscriptionId: 'rt-20' });
    const { subscriberId, subscriberSecret } = inserted.reply as { subscriberId: string; subscriberSecret: string };
    statements = 0;
    const replies = await Promise.all([
      postSync(app, { hash: SITE_HASH, action: 'insert', subscription: subscription(21), subscriptionId: 'rt-21' }),
      postSync(app, { hash: SITE_HASH, action: 'insert', subscription: subscription(22), subscriptionId: 'rt-22' }),
      postSync(app, { hash: SITE_HASH, action: 'http-sync', subscriberId, subscriberSecret, userLanguage: 'it-IT' }),
      postSync(app, { hash: SITE_HASH, action: 'update', subscriberId, subscriberSecret: 'A'.repeat(43), subscription: subscription(23) }),
    ]);
    expect(statements).toBeLessThan(replies.length);
    const [first, second, synced, refused] = replies.map((reply) => reply.json() as Record<string, string>);
    expect([first!.subscriberId, second!.subscriberId, synced!.subscriberId]).toEqual([
      expect.any(String),
      expect.any(String),
      subscriberId,
    ]);
    expect(first!.subscriberId).not.toBe(second!.subscriberId);
    expect(refused).toMatchObject({ status: 'failure', code: 'E_SUBSCRIBER_SECRET_WRONG' });
  });

  it("a batch's http-sync never waits for a subscriber another transaction holds: no deadlock, the same answer", async () => {
    // A batch holds the rows it wrote to its end: an http-sync of it that waited for a row held by another batch,
    // itself waiting for one of this batch's rows, closed a cycle that PostgreSQL found only after deadlock_timeout
    // (1 s), the batch then run again (the soak: 12-19 deadlocks in 30 s, p99 1.2-2.1 s). Here the other batch is a
    // transaction holding the first subscriber; the batch is given the second's http-sync first, then the first's.
    const browsers = [];
    for (const n of [30, 31])
      browsers.push((await sync({ action: 'insert', subscription: subscription(n), subscriptionId: `rt-${n}` })).reply);
    const [first, second] = browsers.sort((x, y) => (x.subscriberId! < y.subscriberId! ? -1 : 1)) as {
      subscriberId: string;
      subscriberSecret: string;
    }[];
    const writer = new Client({ connectionString: stack.url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query('SELECT 1 FROM subscribers WHERE id = $1 FOR UPDATE', [first!.subscriberId]);
      const batcher = syncBatcher(stack.db);
      const batch = Promise.all(
        [second!, first!].map(({ subscriberId, subscriberSecret }) =>
          batcher.run({ action: 'http-sync', site: SITE_HASH, subscriber_id: subscriberId, secret_hash: secretHash(subscriberSecret) }),
        ),
      );
      let answered = false;
      void batch.finally(() => (answered = true));
      const batchWaiting = async (): Promise<'the batch waited for the writer'> => {
        for (;;) {
          const { rows } = await stack.db.query<{ waiting: number }>(
            "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pushkit_sync_batch%'",
          );
          if (rows[0]!.waiting > 0) return 'the batch waited for the writer';
          if (answered) return new Promise(() => {});
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      const answers = await Promise.race([batch, batchWaiting()]);
      if (!Array.isArray(answers)) expect.fail(answers);
      // answered while the first is held: the second written, the first left to the provider's own path
      expect(answers.map((row) => [row.result_code, row.result_id])).toEqual([
        ['success', second!.subscriberId],
        ['fallback', null],
      ]);
      // which waits for the writer holding nothing else, and answers as the batch would have
      const reply = postSync(app, { hash: SITE_HASH, action: 'http-sync', ...first!, userLanguage: 'pt-BR' });
      await expect
        .poll(
          async () => {
            const { rows } = await stack.db.query<{ waiting: number }>(
              "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
            );
            return rows[0]!.waiting;
          },
          { timeout: 30_000, interval: 20 },
        ) // a loaded machine's route may take seconds to get there
        .toBe(1);
      await writer.query('COMMIT');
      expect((await reply).json()).toEqual({ status: 'success', subscriberId: first!.subscriberId });
      const { rows } = await stack.db.query<{ language: string }>('SELECT language FROM subscribers WHERE id = $1', [first!.subscriberId]);
      expect(rows).toEqual([{ language: 'pt-BR' }]);
    } finally {
      await writer.end();
    }
  });

  it("an http-sync naming another browser's subscriber without its secret locks nothing of it", async () => {
    // migration 55 takes an http-sync's row before its update: only with the secret, or anyone who knows a subscriber
    // id could hold that subscriber's row for a batch's length, and send its own browser's syncs to the slower path
    const { reply } = await sync({ action: 'insert', subscription: subscription(40), subscriptionId: 'rt-40' });
    // the last transaction to lock or change the row (a lock leaves its id in xmax)
    const lockedBy = async () =>
      (await stack.db.query<{ xmax: string }>('SELECT xmax::text FROM subscribers WHERE id = $1', [reply.subscriberId])).rows[0]!.xmax;
    const before = await lockedBy(); // the subscribed event's key check left its own mark
    const refused = await sync({ action: 'http-sync', subscriberId: reply.subscriberId!, subscriberSecret: 'B'.repeat(43) });
    expect(refused.reply).toMatchObject({ status: 'failure', code: 'E_SUBSCRIBER_SECRET_WRONG' });
    expect(await lockedBy()).toBe(before);
  });

  it("an in-sync browser's http-sync rewrites its subscriber in its own page: no index written (HOT)", async () => {
    // Migration 50: the http-sync changes no indexed column, so PostgreSQL writes its row's new version beside the
    // old one as a heap-only tuple (no new index entry) when the page has room; at fillfactor 100 a page of inserts
    // had none. One http-sync a page: a second one's room depends on pruning the first one's old version, which any
    // snapshot open in the database at that moment (another connection's statement) prevents.
    const browsers = new Map<string, { subscriberId: string; subscriberSecret: string }>();
    for (let n = 100; n < 130; n += 1) {
      const { reply } = await sync({ action: 'insert', subscription: subscription(n), subscriptionId: `rt-${n}`, userLanguage: 'en-US' });
      browsers.set(reply.subscriberId!, reply as { subscriberId: string; subscriberSecret: string });
    }
    const places = async () =>
      (
        await stack.db.query<{ id: string; page: number; item: number }>(
          `SELECT id, (ctid::text::point)[0]::int AS page, (ctid::text::point)[1]::int AS item FROM subscribers WHERE id = ANY ($1)`,
          [[...browsers.keys()]],
        )
      ).rows;
    const firstOfEachPage = new Map<number, string>();
    for (const { id, page } of await places()) if (!firstOfEachPage.has(page)) firstOfEachPage.set(page, id);
    expect(firstOfEachPage.size).toBeGreaterThan(1); // more than a page of subscribers
    for (const id of firstOfEachPage.values()) {
      const { reply } = await sync({ action: 'http-sync', ...browsers.get(id)!, userLanguage: 'fr-FR' });
      expect(reply).toEqual({ status: 'success', subscriberId: id });
    }
    await stack.db.query('CREATE EXTENSION IF NOT EXISTS pageinspect');
    const synced = new Set(firstOfEachPage.values());
    const rewritten = (await places()).filter(({ id }) => synced.has(id));
    for (const { id, page, item } of rewritten) {
      expect(firstOfEachPage.get(page)).toBe(id); // in its own page
      // HEAP_ONLY_TUPLE (0x8000 in t_infomask2): a version no index points to
      const { rows } = await stack.db.query<{ heapOnly: boolean }>(
        `SELECT (t_infomask2 & 32768) <> 0 AS "heapOnly" FROM heap_page_items(get_raw_page('subscribers', $1)) WHERE lp = $2`,
        [page, item],
      );
      expect(rows).toEqual([{ heapOnly: true }]);
    }
  });
});
