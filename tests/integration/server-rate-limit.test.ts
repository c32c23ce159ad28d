// Per-address and per-site request limits: over a limit the caller gets 429 with Retry-After and nothing is
// stored; a flood from some addresses never locks the others out (issue 17, item 5).
import type { FastifyInstance } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { createApp } from '../../server/http/app.ts';
import type { Database } from '../../server/db/database.ts';
import { postSync, SITE_HASH, testSite } from '../support/server.ts';

function countingDatabase() {
  const statements: string[] = [];
  const query = async <T>(sql: string, params?: unknown[]) => {
    statements.push(sql);
    if (!sql.includes('pushkit_sync_batch')) return { rows: [] as T[] };
    // the sync batch answers a row per action: each as stored (an http-sync as unproven, an update as unknown)
    const actions = JSON.parse(String(params![0])) as { i: number; action: string; new_id?: string }[];
    const rows = actions.map(({ i, action, new_id }) => ({
      i,
      result_code: action === 'http-sync' ? 'fallback' : action === 'update' ? 'E_SYNC_NOT_SUBSCRIBED' : 'success',
      result_id: action === 'insert' ? new_id : null,
      result_issued: action === 'insert',
      result_welcome: null,
    }));
    return { rows: rows as T[] };
  };
  const db: Database = { kind: 'embedded', query, transaction: async (fn) => fn({ query }), close: async () => undefined };
  return { db, statements };
}

const other = testSite({ name: 'other', hash: 'other-site-hash', origin: 'https://other.example' });

describe('rate limits', () => {
  it('refuses an address over its limit with 429 and Retry-After, and stores nothing', async () => {
    const { db, statements } = countingDatabase();
    const app = await createApp({ sites: [testSite()], db, rateLimit: { windowMs: 60_000, perIp: 3, perSite: 100 } });
    for (let index = 0; index < 3; index += 1) {
      expect((await app.inject({ url: `/dyn?hash=${SITE_HASH}`, remoteAddress: '198.51.100.7' })).statusCode).toBe(200);
    }
    const otherAddress = await postSync(app, { hash: SITE_HASH, action: 'insert', subscriptionId: 'x' }, {});
    expect(otherAddress.statusCode).toBe(200); // another address (the default 127.0.0.1) is not limited
    const before = statements.length;
    const limited = await app.inject({
      method: 'POST',
      url: '/syncSubscriptionAction.php',
      remoteAddress: '198.51.100.7',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `hash=${SITE_HASH}&action=insert&subscriptionId=y`,
    });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.json()).toEqual({
      status: 'failure',
      message: 'rate limit: more than 3 requests in 60 s from 198.51.100.7',
      code: 'E_RATE_LIMIT_IP',
    });
    expect(statements.length).toBe(before);
    await app.close();
  });

  // Issue 17, item 5: ~34 addresses sending cheap /dyn calls spent the one per-site bucket, and every other
  // visitor of the site got 429. Reads count per address only; a new visitor's insert still passes.
  it('a flood of cheap /dyn calls from many addresses does not lock a new visitor out', async () => {
    const { db } = countingDatabase();
    const app = await createApp({ sites: [testSite()], db, rateLimit: { windowMs: 60_000, perIp: 6, perSite: 200 } });
    for (let address = 1; address <= 34; address += 1) {
      for (let index = 0; index < 6; index += 1) {
        expect((await app.inject({ url: `/dyn?hash=${SITE_HASH}`, remoteAddress: `192.0.2.${address}` })).statusCode).toBe(200);
      }
    }
    const insert = await postSync(app, { hash: SITE_HASH, action: 'insert', subscriptionId: 'x' }, {});
    expect(insert.statusCode).toBe(200);
    await app.close();
  });

  it("refuses the addresses that spent a site's budget of writes, not the others, and not other sites", async () => {
    const { db } = countingDatabase();
    const rateLimit = { windowMs: 60_000, perIp: 1000, perSite: 4, fairShare: 2 };
    const app = await createApp({ sites: [testSite(), other], db, rateLimit });
    const segment = (hash: string, address: string) =>
      app.inject({ url: `/as?hash=${hash}&id=seg&subscriberId=s1`, remoteAddress: address });
    for (let index = 0; index < 4; index += 1) expect((await segment(SITE_HASH, '192.0.2.1')).statusCode).not.toBe(429);
    const limited = await segment(SITE_HASH, '192.0.2.1');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('E_RATE_LIMIT_SITE');
    expect((await segment(SITE_HASH, '192.0.2.2')).statusCode).not.toBe(429); // a fair share is always served
    expect((await segment(SITE_HASH, '192.0.2.2')).statusCode).not.toBe(429);
    expect((await segment(SITE_HASH, '192.0.2.2')).json().code).toBe('E_RATE_LIMIT_SITE');
    expect((await segment('other-site-hash', '192.0.2.1')).statusCode).not.toBe(429);
    await app.close();
  });

  it('counts an IPv6 client by its /64, so fresh addresses of one network share one budget', async () => {
    const { db } = countingDatabase();
    const app = await createApp({ sites: [testSite()], db, rateLimit: { windowMs: 60_000, perIp: 3, perSite: 100 } });
    const call = (address: string) => app.inject({ url: `/dyn?hash=${SITE_HASH}`, remoteAddress: address });
    for (let index = 1; index <= 3; index += 1) expect((await call(`2001:db8:1:2::${index}`)).statusCode).toBe(200);
    const limited = await call('2001:db8:1:2:ffff:ffff:ffff:4');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'E_RATE_LIMIT_IP', message: expect.stringContaining('2001:db8:1:2::/64') });
    expect((await call('2001:db8:1:3::1')).statusCode).toBe(200); // the next /64 is another client
    await app.close();
  });

  it('behind a trusted proxy counts each forwarded client; without trust the header changes nothing', async () => {
    const { db } = countingDatabase();
    const rateLimit = { windowMs: 60_000, perIp: 2, perSite: 100 };
    const call = (app: FastifyInstance, client: string) =>
      app.inject({ url: `/dyn?hash=${SITE_HASH}`, remoteAddress: '10.0.0.5', headers: { 'x-forwarded-for': client } });

    const trusting = await createApp({ sites: [testSite()], db, rateLimit, trustProxy: '10.0.0.0/8' });
    for (let client = 1; client <= 5; client += 1) {
      expect((await call(trusting, `198.51.100.${client}`)).statusCode).toBe(200);
      expect((await call(trusting, `198.51.100.${client}`)).statusCode).toBe(200);
    }
    const limited = await call(trusting, '198.51.100.1');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().message).toContain('198.51.100.1');
    await trusting.close();

    const direct = await createApp({ sites: [testSite()], db, rateLimit });
    expect((await call(direct, '198.51.100.1')).statusCode).toBe(200);
    expect((await call(direct, '198.51.100.2')).statusCode).toBe(200);
    const spoofed = await call(direct, '198.51.100.3');
    expect(spoofed.statusCode).toBe(429);
    expect(spoofed.json().message).toContain('10.0.0.5');
    await direct.close();
  });

  it('starts counting afresh in the next window', async () => {
    // the clock moved by hand: with a real 50 ms window a loaded machine put the second request in the next window
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const { db } = countingDatabase();
      const app = await createApp({ sites: [testSite()], db, rateLimit: { windowMs: 10_000, perIp: 1, perSite: 100 } });
      expect((await app.inject({ url: `/dyn?hash=${SITE_HASH}` })).statusCode).toBe(200);
      vi.setSystemTime(Date.now() + 9_999);
      expect((await app.inject({ url: `/dyn?hash=${SITE_HASH}` })).statusCode).toBe(429);
      vi.setSystemTime(Date.now() + 1);
      expect((await app.inject({ url: `/dyn?hash=${SITE_HASH}` })).statusCode).toBe(200);
      await app.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
