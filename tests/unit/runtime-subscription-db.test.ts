// The local indexed database of spec section 3, through idb on fake-indexeddb.
import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { beforeEach, describe, expect, it } from 'vitest';
import { readSubscription, saveSubscription } from '../../runtime/subscription-db.ts';

beforeEach(async () => {
  await saveSubscription(undefined);
});

describe('subscription database', () => {
  it('is named pushkit, version 1, with one store keyed by identifier holding the subscription record', async () => {
    const before = Date.now();
    await saveSubscription({ endpoint: 'https://push.test/send/1', keys: { p256dh: 'p', auth: 'a' } });
    const db = await openDB('pushkit');
    expect(db.version).toBe(1);
    expect([...db.objectStoreNames]).toEqual(['subscriptionInfo']);
    expect(db.transaction('subscriptionInfo').store.keyPath).toBe('identifier');
    const record = await db.get('subscriptionInfo', 'subscription');
    db.close();
    expect(record).toEqual({
      identifier: 'subscription',
      subscriptionString: JSON.stringify({ endpoint: 'https://push.test/send/1', keys: { p256dh: 'p', auth: 'a' } }),
      timestamp: expect.any(Number),
    });
    expect(record.timestamp).toBeGreaterThanOrEqual(before);
    await expect(readSubscription()).resolves.toEqual({ endpoint: 'https://push.test/send/1', keys: { p256dh: 'p', auth: 'a' } });
  });

  it.each([
    ['not JSON', '{endpoint'],
    ['JSON without an endpoint', '{"keys":{}}'],
    ['an endpoint that is not a URL', '{"endpoint":"javascript:alert(1)"}'],
    ['null', 'null'],
  ])('a record edited into %s reads as absent', async (_, subscriptionString) => {
    const db = await openDB('pushkit', 1, { upgrade: (d) => void d.createObjectStore('subscriptionInfo', { keyPath: 'identifier' }) });
    await db.put('subscriptionInfo', { identifier: 'subscription', subscriptionString, timestamp: 1 });
    db.close();
    await expect(readSubscription()).resolves.toBeUndefined();
  });

  it('removing the subscription deletes the record', async () => {
    await saveSubscription({ endpoint: 'https://push.test/send/2' });
    await saveSubscription(undefined);
    await expect(readSubscription()).resolves.toBeUndefined();
  });
});
