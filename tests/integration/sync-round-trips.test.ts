// The sync endpoint's round trips to PostgreSQL (issue 34): each statement is one, so the actions the load is
// made of send few. Counted at the pg client, with the replies and the stored row checked on the way.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { runSyncAction } from '../../server/sync/subscription-sync.ts';
import { syncPayloadSchema } from '../../server/sync/sync-payload.ts';
import { openThrowawayPostgres } from '../support/throwaway-postgres.ts';

const url = process.env.PUSHKIT_TEST_DATABASE_URL;
const { Client } = createRequire(import.meta.url)('pg') as typeof pg;
const SITE = 'round-trips-site';
const KEYS = {
  p256dh: 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s',
  auth: 'oMI2KGm4uNsKFv_2oqmNvg',
};

describe.skipIf(!url)('sync actions on PostgreSQL', () => {
  let stack: Awaited<ReturnType<typeof openThrowawayPostgres>>;
  let statements = 0;
  const original = Client.prototype.query;
  beforeAll(async () => {
    stack = await openThrowawayPostgres(url!);
    Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      statements += 1;
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
  });
  afterAll(async () => {
    Client.prototype.query = original;
    await stack?.cleanup();
  });

  async function sync(fields: Record<string, string>) {
    statements = 0;
    const payload = syncPayloadSchema.parse({ hash: SITE, browserType: 'chrome', ...fields });
    const result = await runSyncAction(stack.db, SITE, payload);
    return { result, statements };
  }
  const subscription = (n: number) => JSON.stringify({ endpoint: `https://push.example/send/round-trips-${n}`, keys: KEYS });

  it('an insert takes 4 statements, an update 5, an http-sync with its secret 1; a wrong secret is still refused', async () => {
    const inserted = await sync({ action: 'insert', subscription: subscription(1), subscriptionId: 'rt-1', userLanguage: 'en-US' });
    expect(inserted.result).toMatchObject({ status: 'success', subscriberId: expect.any(String), subscriberSecret: expect.any(String) });
    expect(inserted.statements).toBe(4); // BEGIN + lock, look-up, subscriber + event + webhook messages, COMMIT
    const { subscriberId, subscriberSecret } = inserted.result as { subscriberId: string; subscriberSecret: string };

    const updated = await sync({ action: 'update', subscriberId, subscriberSecret, subscription: subscription(2), subscriptionId: 'rt-2' });
    expect(updated.result).toEqual({ status: 'success', subscriberId });
    expect(updated.statements).toBe(5); // BEGIN + lock, look-up, the endpoint's release, update + webhook messages, COMMIT

    const synced = await sync({ action: 'http-sync', subscriberId, subscriberSecret, userLanguage: 'fr-FR' });
    expect(synced.result).toEqual({ status: 'success', subscriberId });
    expect(synced.statements).toBe(1);

    const refused = await sync({ action: 'http-sync', subscriberId, subscriberSecret: 'A'.repeat(43), userLanguage: 'de-DE' });
    expect(refused.result).toMatchObject({ status: 'failure', code: 'E_SUBSCRIBER_SECRET_WRONG' });
    const { rows } = await stack.db.query<{ language: string; endpoint: string }>(
      'SELECT language, endpoint FROM subscribers WHERE id = $1',
      [subscriberId],
    );
    expect(rows).toEqual([{ language: 'fr-FR', endpoint: 'https://push.example/send/round-trips-2' }]);
  });
});
