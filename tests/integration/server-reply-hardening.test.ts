// Issue 17, item 8: CORS decided on the route a request reaches (not its raw URL), a full disk answered as a
// passing 503, and `nosniff` on every reply.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, STORAGE_FULL_RETRY_SECONDS } from '../../server/http/app.ts';
import type { Database } from '../../server/db/database.ts';
import { databaseUnavailable } from '../../server/db/database.ts';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { insertSubscriber, postSync, SITE_HASH, SITE_ORIGIN, testSite } from '../support/server.ts';

const site = testSite();
let harness: ProviderHarness;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  harness = await startProviderHarness({ via: 'createApp', service: false, sites: [site], rateLimit: false });
  ({ app, ownerKey: key } = harness);
});
afterAll(async () => {
  await harness?.close();
});

describe('CORS on the owner API', () => {
  it.each(['/api/v1/sites/letters/subscribers', '/api/v1/%73ites/letters/subscribers', '/api/v1/sites/%6cetters/subscribers'])(
    'gives no CORS headers to %s, however the path is spelled',
    async (url) => {
      const reply = await app.inject({ url, headers: { origin: SITE_ORIGIN, authorization: `Bearer ${key}` } });
      expect(reply.statusCode).toBe(200);
      expect(reply.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: SITE_ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    },
  );

  it('still gives them to the site on its public calls', async () => {
    const { id } = await insertSubscriber(app);
    const reply = await app.inject({ url: `/dyn?hash=${SITE_HASH}&subscriberId=${id}`, headers: { origin: SITE_ORIGIN } });
    expect(reply.headers['access-control-allow-origin']).toBe(SITE_ORIGIN);
  });
});

describe('nosniff', () => {
  it('is on every reply: success, JSONP, failure, unknown route, owner API', async () => {
    const replies = await Promise.all([
      postSync(app, {
        hash: SITE_HASH,
        action: 'insert',
        subscription: JSON.stringify({ endpoint: 'https://fcm.googleapis.com/fcm/send/n1' }),
      }),
      app.inject({ url: `/dyn?hash=${SITE_HASH}&subscriberId=none&callback=cb` }),
      postSync(app, { hash: 'no-such-site', action: 'insert', subscriptionId: 'x' }),
      app.inject({ url: '/wp-login.php' }),
      app.inject({ url: '/api/v1/sites/letters/subscribers/count', headers: { authorization: `Bearer ${key}` } }),
    ]);
    for (const reply of replies) expect(reply.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('a full disk', () => {
  const failingWith = (error: Error): Database => {
    const fail = (): never => {
      throw error;
    };
    return { kind: 'embedded', query: async () => fail(), transaction: async () => fail(), close: async () => undefined };
  };

  it.each([
    [
      'PGlite / PostgreSQL disk_full (53100)',
      Object.assign(new Error('could not extend file "base/5/16384": No space left on device'), { code: '53100' }),
    ],
    ['a Node file call (ENOSPC)', Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })],
    ['a quota (EDQUOT)', Object.assign(new Error('EDQUOT: disk quota exceeded, write'), { code: 'EDQUOT' })],
    ['a PostgreSQL server, as the pool reports it', databaseUnavailable(Object.assign(new Error('could not write'), { code: '53100' }))],
  ])('answers 503 with Retry-After and E_STORAGE_FULL: %s', async (_label, error) => {
    const fullApp = await createApp({ sites: [site], db: failingWith(error), rateLimit: false });
    try {
      const reply = await postSync(fullApp, { hash: SITE_HASH, action: 'insert', subscriptionId: 'full-1' });
      expect(reply.statusCode).toBe(503);
      expect(reply.headers['retry-after']).toBe(String(STORAGE_FULL_RETRY_SECONDS));
      expect(reply.json()).toMatchObject({ status: 'failure', code: 'E_STORAGE_FULL' });
    } finally {
      await fullApp.close();
    }
  });
});
