// Per-IP and per-site request limits: over a limit the caller gets 429 with Retry-After and nothing is stored.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.ts';
import type { Database } from '../../server/store/database.ts';
import { postSync, SITE_HASH, testSite } from '../support/server.ts';

function countingDatabase() {
  const statements: string[] = [];
  const query = async <T>(sql: string) => {
    statements.push(sql);
    return { rows: [] as T[] };
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

  it('refuses a site over its limit while other sites keep working', async () => {
    const { db } = countingDatabase();
    const app = await createApp({ sites: [testSite(), other], db, rateLimit: { windowMs: 60_000, perIp: 1000, perSite: 2 } });
    const call = (hash: string, address: string) => app.inject({ url: `/dyn?hash=${hash}`, remoteAddress: address });
    expect((await call(SITE_HASH, '192.0.2.1')).statusCode).toBe(200);
    expect((await call(SITE_HASH, '192.0.2.2')).statusCode).toBe(200);
    const limited = await call(SITE_HASH, '192.0.2.3');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('E_RATE_LIMIT_SITE');
    expect((await call('other-site-hash', '192.0.2.3')).statusCode).toBe(200);
    await app.close();
  });

  it('starts counting afresh in the next window', async () => {
    const { db } = countingDatabase();
    const app = await createApp({ sites: [testSite()], db, rateLimit: { windowMs: 50, perIp: 1, perSite: 100 } });
    expect((await app.inject({ url: `/dyn?hash=${SITE_HASH}` })).statusCode).toBe(200);
    expect((await app.inject({ url: `/dyn?hash=${SITE_HASH}` })).statusCode).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((await app.inject({ url: `/dyn?hash=${SITE_HASH}` })).statusCode).toBe(200);
    await app.close();
  });
});
