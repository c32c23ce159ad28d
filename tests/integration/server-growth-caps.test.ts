// Issue 17, item 4: what visitor calls can make the provider store is bounded. Tags per subscriber, segments
// created by visitors per site, and events by age.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProvider } from '../../server/start-provider.ts';
import { embeddedDatabaseDir } from '../../server/state-paths.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { pruneEvents } from '../../server/db/event-retention.ts';
import { createSegment } from '../../server/segments/segment-store.ts';
import { MAX_TAGS_PER_SUBSCRIBER } from '../../server/subscribers/subscriber-records.ts';
import {
  VISITOR_SEGMENTS_PER_ADDRESS,
  VISITOR_SEGMENTS_PER_SITE,
  VISITOR_SEGMENTS_PER_SUBSCRIBER,
} from '../../server/visitors/visitor-segments.ts';
import { seedMigratedDatabase } from '../support/migrated-database.ts';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { insertSubscriber, SITE_HASH, tempDir, testSite } from '../support/server.ts';

const site = testSite();
site.config.segmentations.push({ sid: 'from-config', ss: 'true', vn: 1 });
let harness: ProviderHarness;
let db: Database;
let app: FastifyInstance;

beforeAll(async () => {
  harness = await startProviderHarness({ via: 'createApp', service: false, sites: [site], rateLimit: false });
  ({ app, db } = harness);
});
afterAll(async () => {
  await harness?.close();
});

/** A subscriber as its own browser knows itself: the id and the secret the insert issued (SECURITY.md). */
type Subscriber = { id: string; secret: string };

const tagsCall = (method: 'GET' | 'POST', { id, secret }: Subscriber, tags: Record<string, unknown>) =>
  app.inject({
    method,
    url: `/tags?${new URLSearchParams({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret, tags: JSON.stringify(tags) })}`,
  });
const fiftyTags = (round: number) => Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${round}-${i}`, 'x'.repeat(100)]));
const tagCount = async (id: string) =>
  Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM subscriber_tags WHERE subscriber_id = $1', [id])).rows[0]!.n);

describe('tags per subscriber', () => {
  it(`40 POST /tags leave at most ${MAX_TAGS_PER_SUBSCRIBER} tags; the call past the limit is refused whole`, async () => {
    const subscriber = await insertSubscriber(app);
    const { id } = subscriber;
    const replies = [];
    for (let round = 0; round < 40; round += 1) replies.push(await tagsCall(round % 2 ? 'POST' : 'GET', subscriber, fiftyTags(round)));
    expect(replies.slice(0, 2).map((reply) => reply.statusCode)).toEqual([200, 200]);
    for (const reply of replies.slice(2)) {
      expect(reply.statusCode).toBe(409);
      expect(reply.json().code).toBe('E_TAG_LIMIT');
    }
    expect(await tagCount(id)).toBe(MAX_TAGS_PER_SUBSCRIBER);
    const dyn = await app.inject({
      url: `/dyn?${new URLSearchParams({ hash: SITE_HASH, subscriberId: id, subscriberSecret: subscriber.secret })}`,
    });
    expect(dyn.statusCode).toBe(200);
    expect(dyn.body.length).toBeLessThan(40_000);
  });

  it('a subscriber at the limit still changes and deletes its tags, and deleting makes room', async () => {
    const subscriber = await insertSubscriber(app);
    await tagsCall('GET', subscriber, fiftyTags(0));
    await tagsCall('GET', subscriber, fiftyTags(1));
    expect((await tagsCall('GET', subscriber, { 'k0-0': 'changed' })).statusCode).toBe(200);
    expect((await tagsCall('GET', subscriber, { 'k0-1': null, fresh: 'yes' })).statusCode).toBe(200);
    expect(await tagCount(subscriber.id)).toBe(MAX_TAGS_PER_SUBSCRIBER);
  });
});

describe('segments created by visitors', () => {
  const addToSegment = (sid: string, subscriber: Subscriber | Subscriber[], remoteAddress = '127.0.0.1') => {
    const listed = Array.isArray(subscriber) ? subscriber : [subscriber];
    const query = new URLSearchParams({ id: sid, customer_hash: SITE_HASH });
    for (const { id, secret } of listed) {
      query.append('subscriber_list[]', id);
      query.append('subscriberSecret[]', secret);
    }
    return app.inject({ url: `/as?${query}`, remoteAddress });
  };
  const beacon = (sid: string, { id, secret }: Subscriber, remoteAddress = '127.0.0.1') =>
    app.inject({
      url: `/c.gif?${new URLSearchParams({ hash: SITE_HASH, subscriberId: id, subscriberSecret: secret, segment: sid, action: 'add-segment' })}`,
      remoteAddress,
    });
  const segmentCount = async () =>
    Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM segments WHERE site_hash = $1', [SITE_HASH])).rows[0]!.n);
  const created = async (calls: Promise<{ statusCode: number; json(): { code?: string; message?: string } }>[]) => {
    const replies = await Promise.all(calls);
    for (const reply of replies) if (reply.statusCode !== 200) expect(reply.json().code).toBe('E_SEGMENT_NOT_DEFINED');
    return replies.filter((reply) => reply.statusCode === 200).length;
  };

  // Issue 27, item 5: one caller (a minted subscriber, then many from one address) used to take the site's whole
  // room for visitor-created segments, and every other visitor's new segment was refused until the owner cleaned up.
  it(`one subscriber creates ${VISITOR_SEGMENTS_PER_SUBSCRIBER}; its address ${VISITOR_SEGMENTS_PER_ADDRESS}; the site ${VISITOR_SEGMENTS_PER_SITE}, and others keep their room until then`, async () => {
    const before = await segmentCount();
    const greedy = await insertSubscriber(app);
    expect(await created(Array.from({ length: 20 }, (_, n) => addToSegment(`junk-seg-${n}`, greedy)))).toBe(
      VISITOR_SEGMENTS_PER_SUBSCRIBER,
    );
    const refused = await addToSegment('junk-more', greedy);
    expect(refused.json().message).toBe(
      `id: segment junk-more is not defined on this site, and this subscriber created the ${VISITOR_SEGMENTS_PER_SUBSCRIBER} segments it may; the owner creates it first`,
    );
    expect((await beacon('junk-beacon', greedy)).json()).toMatchObject({ code: 'E_SEGMENT_NOT_DEFINED' });

    // more subscribers from the same address: the address's bound
    let fromAddress = VISITOR_SEGMENTS_PER_SUBSCRIBER;
    for (let n = 0; n < 5; n += 1) {
      const minted = await insertSubscriber(app);
      fromAddress += await created([0, 1, 2].map((k) => addToSegment(`addr-${n}-${k}`, minted)));
    }
    expect(fromAddress).toBe(VISITOR_SEGMENTS_PER_ADDRESS);

    // another visitor, elsewhere, still creates hers, until the site-wide bound
    const visitor = await insertSubscriber(app);
    expect((await addToSegment('her-own', visitor, '10.1.2.3')).statusCode).toBe(200);
    let total = VISITOR_SEGMENTS_PER_ADDRESS + 1;
    for (let n = 0; total < VISITOR_SEGMENTS_PER_SITE + 2; n += 1) {
      const elsewhere = await insertSubscriber(app);
      const made = await created([addToSegment(`site-${n}`, elsewhere, `10.9.${n}.1`)]);
      if (made === 0) break;
      total += made;
    }
    expect(total).toBe(VISITOR_SEGMENTS_PER_SITE);
    expect(await segmentCount()).toBe(before + VISITOR_SEGMENTS_PER_SITE);
  });

  it('one subscriber listed a hundred times in one /as call is one member and one event', async () => {
    const subscriber = await insertSubscriber(app);
    expect((await addToSegment('from-config', Array(100).fill(subscriber))).statusCode).toBe(200);
    const rows = async (from: string) =>
      Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${from} AND subscriber_id = $1`, [subscriber.id])).rows[0]!.n);
    expect(await rows('segment_memberships WHERE true')).toBe(1);
    expect(await rows(`events WHERE kind = 'segment-add'`)).toBe(1);
  });

  it('past the limit, segments of the site config, of the owner, and ones created before still take visitors', async () => {
    const subscriber = await insertSubscriber(app);
    const { id } = subscriber;
    await createSegment(db, SITE_HASH, 'owners-own', 'Owner');
    expect((await addToSegment('from-config', subscriber)).statusCode).toBe(200);
    expect((await beacon('owners-own', subscriber)).statusCode).toBe(200);
    expect((await addToSegment('junk-seg-1', subscriber)).statusCode).toBe(200);
    const { rows } = await db.query<{ sid: string }>(
      'SELECT s.sid FROM segment_memberships m JOIN segments s ON s.id = m.segment_id WHERE m.subscriber_id = $1 ORDER BY s.sid',
      [id],
    );
    expect(rows.map((row) => row.sid)).toEqual(['from-config', 'junk-seg-1', 'owners-own']);
  });
});

describe('event retention', () => {
  const addEvents = (target: Database, daysAgo: number, count: number) =>
    target.query(
      `INSERT INTO events (site_hash, kind, created_at) SELECT $1, 'old-test', now() - make_interval(days => $2::int) FROM generate_series(1, $3::int)`,
      [SITE_HASH, daysAgo, count],
    );
  const eventsOlderThan = async (target: Database, days: number) =>
    Number(
      (
        await target.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE created_at < now() - make_interval(days => $1::int)`, [
          days,
        ])
      ).rows[0]!.n,
    );

  it('pruneEvents deletes, in batches, only the events older than the retention', async () => {
    await addEvents(db, 200, 25);
    await addEvents(db, 10, 5);
    const recentBefore = (await db.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n;
    expect(await pruneEvents(db, 180, 7)).toBe(25);
    expect(await eventsOlderThan(db, 180)).toBe(0);
    expect(Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]!.n)).toBe(Number(recentBefore) - 25);
  });

  it('startProvider prunes at start with the retention it is given, and refuses one that is not a number of days', async () => {
    const state = await tempDir('pushkit-retention-');
    try {
      await seedMigratedDatabase(embeddedDatabaseDir(state.path));
      const seeded = await openDatabase({ dataDir: embeddedDatabaseDir(state.path) });
      await addEvents(seeded, 40, 12);
      await addEvents(seeded, 5, 3);
      await seeded.close();
      const provider = await startProvider({ sites: [site], stateDir: state.path, eventRetentionDays: 30 });
      try {
        for (let tries = 0; tries < 50 && (await eventsOlderThan(provider.db, 30)) > 0; tries += 1)
          await new Promise((r) => setTimeout(r, 100));
        expect(await eventsOlderThan(provider.db, 30)).toBe(0);
        expect(await eventsOlderThan(provider.db, 1)).toBe(3);
      } finally {
        await provider.close();
      }
      await expect(startProvider({ sites: [site], stateDir: state.path, eventRetentionDays: '0' })).rejects.toMatchObject({
        code: 'E_EVENT_RETENTION_SETTING',
      });
    } finally {
      await state.remove();
    }
  });
});
