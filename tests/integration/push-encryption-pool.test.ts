// The encryption threads a campaign sends through (server/push/encryption-pool.ts): what they encrypt is
// readable at the push service, what cannot be encrypted fails once without retries, and a thread that dies
// mid-campaign costs a retry of its batch, never a lost or doubled message.
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCampaign } from '../../server/campaigns/campaign-runner.ts';
import { InMemoryDeliveryStore } from '../../server/campaigns/delivery-store.ts';
import { MAX_PAYLOAD_BYTES } from '../../server/push/encrypt.ts';
import { EncryptionPool } from '../../server/push/encryption-pool.ts';
import { closePushConnections, type SendPushOptions } from '../../server/push/send.ts';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.ts';
import { createSubscriberKeys, decryptPushBody, startFakePushService, type FakePushService } from '../support/fake-push-service.ts';

let service: FakePushService;
let options: SendPushOptions;
const pool = new EncryptionPool(2);
const keys = Array.from({ length: 4 }, () => createSubscriberKeys());

beforeAll(async () => {
  service = await startFakePushService();
  options = { vapid: generateVapidKeyPair(), subject: 'mailto:owner@example.com', ca: service.ca, pushServices: service.pushServices };
});
afterAll(async () => {
  await pool.close();
  await closePushConnections();
  await service.close();
});

function campaign(campaignId: string, size: number, payload: (index: number) => string): InMemoryDeliveryStore {
  const store = new InMemoryDeliveryStore();
  for (let index = 0; index < size; index += 1) {
    const subscription = { endpoint: `${service.origin}/${campaignId}/${index}`, keys: keys[index % keys.length]! };
    store.add({ id: `${campaignId}-${index}`, campaignId, subscription, payload: payload(index) });
  }
  return store;
}

describe('a campaign encrypted on the thread pool', () => {
  // a thread costs 70-140 ms of CPU to start: `push-kit send` to a few subscribers needs one, a provider that sends nothing none
  it('starts threads as the work needs them: none before a message, one for a few messages, more for a larger turn', async () => {
    const threads = (pool as unknown as { threads: unknown[] }).threads;
    expect(threads).toHaveLength(0);
    const few = await Promise.all(keys.slice(0, 3).map((subscriber, index) => pool.encrypt(`{"title":"few ${index}"}`, subscriber)));
    few.forEach((body, index) => expect(decryptPushBody(body, keys[index]!).toString('utf8')).toBe(`{"title":"few ${index}"}`));
    expect(threads).toHaveLength(1);
    await Promise.all(Array.from({ length: 20 }, (_, index) => pool.encrypt(`{"title":"more ${index}"}`, keys[index % keys.length]!)));
    expect(threads).toHaveLength(2);
  });

  it('delivers to each subscriber a message only its keys decrypt, with its own payload', async () => {
    const store = campaign('readable', 120, (index) => JSON.stringify({ title: `message ${index}` }));
    const counts = await runCampaign(store, 'readable', { ...options, concurrency: 30, encryptor: pool });
    expect(counts).toEqual({ sent: 120, delivered: 120, failed: 0, expired: 0 });
    for (let index = 0; index < 120; index += 1) {
      const pushes = service.requests.filter((push) => push.path === `/readable/${index}`);
      expect(pushes).toHaveLength(1);
      expect(JSON.parse(decryptPushBody(pushes[0]!.body, keys[index % keys.length]!).toString('utf8'))).toEqual({
        title: `message ${index}`,
      });
    }
  });

  it('fails a payload too large for Web Push at once, without a retry or a request', async () => {
    const store = campaign('too-large', 2, (index) => (index === 0 ? 'x'.repeat(MAX_PAYLOAD_BYTES + 1) : '{"title":"fits"}'));
    const counts = await runCampaign(store, 'too-large', { ...options, encryptor: pool, backoffMs: 1 });
    expect(counts).toEqual({ sent: 2, delivered: 1, failed: 1, expired: 0 });
    expect(store.statusOf('too-large-0')).toMatchObject({
      status: 'failed',
      failure: { reason: expect.stringMatching(/at most 3993 bytes/) },
    });
    expect(service.countFor('/too-large/0')).toBe(0);
  });

  it('when a thread dies mid-campaign, retries its batch on a new thread and delivers every message exactly once', async () => {
    const threads = (pool as unknown as { threads: Array<{ worker: Worker; waiting: Map<number, unknown> }> }).threads;
    const store = campaign('thread-dies', 600, (index) => JSON.stringify({ title: `message ${index}` }));
    let killed: Worker | undefined;
    const counts = await runCampaign(store, 'thread-dies', {
      ...options,
      concurrency: 50,
      backoffMs: 5,
      encryptor: pool,
      onProgress: (progress) => {
        // The thread dies holding its next batch (posted to it, never answered): those messages fail as
        // retryable. Killing it from outside instead races its answers, which may arrive before the exit.
        if (!killed && progress.sent >= 100) {
          const worker = threads[0]!.worker;
          killed = worker;
          worker.postMessage = () => void worker.terminate();
        }
      },
    });
    expect(killed).toBeDefined();
    expect(threads).not.toContain(killed);
    expect(counts.sent).toBeGreaterThan(600);
    expect(counts.delivered).toBe(600);
    expect(counts.failed).toBe(0);
    for (let index = 0; index < 600; index += 1) expect(service.countFor(`/thread-dies/${index}`)).toBe(1);
  });
});
