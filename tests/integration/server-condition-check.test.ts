// POST /api/v1/sites/:name/conditions/check: the owner dashboard's live check of a segment condition, with the
// site's owner key, answered by the compiler push-kit build uses; its error reads as segment creation's does.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatConditionError, type ConditionCheckReply } from '../../contract/conditions.ts';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { testSite } from '../support/server.ts';

let harness: ProviderHarness;
let app: FastifyInstance;
let key: string;
const site = testSite();

beforeAll(async () => {
  harness = await startProviderHarness({
    via: 'createApp',
    service: false,
    sites: [site],
    rateLimit: { windowMs: 60_000, perIp: 8, perSite: 1000 },
  });
  ({ app, ownerKey: key } = harness);
});
afterAll(async () => {
  await harness?.close();
});

const check = (payload: unknown, bearer: string | null = key, name = 'letters') =>
  app.inject({
    method: 'POST',
    url: `/api/v1/sites/${name}/conditions/check`,
    headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
    payload: payload as object,
  });

describe('condition check', () => {
  it('answers ok for a condition push-kit build accepts, and the code, message and column of one it refuses', async () => {
    const good = await check({ condition: 'path startsWith "/blog" and visitCount > 2' });
    expect(good.statusCode).toBe(200);
    expect(good.json()).toEqual({ ok: true });

    const bad = await check({ condition: 'path == "/a" and' });
    expect(bad.statusCode).toBe(200);
    const reply = bad.json<ConditionCheckReply>();
    expect(reply).toEqual({
      ok: false,
      error: { code: 'E_CONDITION_EXPECTED_VALUE', message: 'expected a value after "and"', column: 17 },
    });

    // segment creation refuses the same condition with the same words
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/sites/letters/segments',
      headers: { authorization: `Bearer ${key}` },
      payload: { sid: 'blog', condition: 'path == "/a" and' },
    });
    expect(created.statusCode).toBe(400);
    expect(created.json().message).toBe(`condition: ${formatConditionError(reply.ok ? { message: '', column: 0 } : reply.error)}`);
  });

  it('needs the owner key and a condition, and says which with a code', async () => {
    expect((await check({ condition: 'true' }, null)).json()).toMatchObject({ status: 'failure', code: 'E_OWNER_KEY_MISSING' });
    expect((await check({ condition: 'true' }, 'pk_wrong')).statusCode).toBe(401);
    expect((await check({ condition: 'true' }, key, 'nope')).json()).toMatchObject({ status: 'failure', code: 'E_OWNER_KEY' });
    const missing = await check({});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ status: 'failure', code: 'E_PARAM_MISSING', message: 'condition: is required' });
    expect((await check({ condition: 'x'.repeat(2001) })).json()).toMatchObject({ code: 'E_PARAM_INVALID' });
  });

  it('is rate limited as every owner call is', async () => {
    let limited = 0;
    for (let index = 0; index < 10; index += 1) if ((await check({ condition: 'true' })).statusCode === 429) limited += 1;
    expect(limited).toBeGreaterThan(0);
  });
});
