import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCampaign, type RunCounts } from '../../server/campaigns/campaign-runner.js';
import { InMemoryDeliveryStore } from '../../server/campaigns/delivery-store.js';
import { PushServiceAllowlist } from '../../server/push/push-services.ts';
import { closePushConnections, sendPush, type SendPushOptions } from '../../server/push/send.js';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.js';
import {
  createSubscriberKeys,
  decryptPushBody,
  startFakePushService,
  type FakePushService,
  type SubscriberKeys,
} from '../support/fake-push-service.js';

let service: FakePushService;
let options: SendPushOptions;
const vapid = generateVapidKeyPair();
// One key pair for all subscribers keeps a 500-subscriber campaign fast to set up; endpoints differ.
const keys: SubscriberKeys = createSubscriberKeys();

beforeAll(async () => {
  service = await startFakePushService();
  options = { vapid, subject: 'mailto:owner@example.com', ca: service.ca, pushServices: service.pushServices };
});
afterAll(async () => {
  await closePushConnections();
  await service.close();
});

function campaign(campaignId: string, paths: string[], payload = '{"title":"t"}'): InMemoryDeliveryStore {
  const store = new InMemoryDeliveryStore();
  paths.forEach((path, index) => {
    store.add({ id: `${campaignId}-${index}`, campaignId, subscription: { endpoint: `${service.origin}${path}`, keys }, payload });
  });
  return store;
}

describe('runCampaign', () => {
  it('interrupted mid-way and resumed, delivers each of 500 messages exactly once', async () => {
    const paths = Array.from({ length: 500 }, (_, i) => `/resume/${i}`);
    const store = campaign('resume', paths);
    const stop = new AbortController();
    const first = await runCampaign(store, 'resume', {
      ...options,
      concurrency: 40,
      signal: stop.signal,
      onProgress: (counts) => {
        if (counts.sent >= 180) stop.abort();
      },
    });
    expect(first.delivered).toBeGreaterThanOrEqual(180);
    expect(first.delivered).toBeLessThan(500);
    expect(paths.filter((p) => service.countFor(p) === 1).length).toBe(first.delivered);

    const second = await runCampaign(store, 'resume', { ...options, concurrency: 40 });
    expect(first.delivered + second.delivered).toBe(500);
    expect(paths.every((p) => service.countFor(p) === 1)).toBe(true);
    expect(paths.every((_, i) => store.statusOf(`resume-${i}`).status === 'delivered')).toBe(true);
    const body = service.requests.find((r) => r.path === '/resume/0')!.body;
    expect(decryptPushBody(body, keys).toString()).toBe('{"title":"t"}');
  });

  it('two runners on one store share the work without sending anything twice', async () => {
    const paths = Array.from({ length: 200 }, (_, i) => `/shared/${i}`);
    const store = campaign('shared', paths);
    const [a, b] = await Promise.all([
      runCampaign(store, 'shared', { ...options, concurrency: 10 }),
      runCampaign(store, 'shared', { ...options, concurrency: 10 }),
    ]);
    expect(a.delivered + b.delivered).toBe(200);
    expect(paths.every((p) => service.countFor(p) === 1)).toBe(true);
  });

  it('marks 410 expired, retries 429 after its Retry-After, retries 500 then marks it failed', async () => {
    service.answer('/mixed/gone', { status: 410 });
    service.answer('/mixed/throttled', { status: 429, retryAfter: '1', times: 1 });
    service.answer('/mixed/broken', { status: 500 });
    const store = campaign('mixed', ['/mixed/ok', '/mixed/gone', '/mixed/throttled', '/mixed/broken']);
    const progress: RunCounts[] = [];
    const counts = await runCampaign(store, 'mixed', {
      ...options,
      maxAttempts: 3,
      backoffMs: 50,
      onProgress: (c) => progress.push(c),
    });

    expect(counts).toEqual({ sent: 1 + 1 + 2 + 3, delivered: 2, failed: 1, expired: 1 });
    expect(progress.at(-1)).toEqual(counts);
    expect(store.statusOf('mixed-1')).toMatchObject({ status: 'expired', attempts: 1 });
    expect(store.statusOf('mixed-2')).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(store.statusOf('mixed-3')).toEqual({
      status: 'failed',
      attempts: 3,
      failure: { statusCode: 500, reason: 'fake push service says 500', host: '127.0.0.1' },
    });
    expect(service.countFor('/mixed/gone')).toBe(1);
    expect(service.countFor('/mixed/broken')).toBe(3);

    const throttled = service.requests.filter((r) => r.path === '/mixed/throttled');
    expect(throttled).toHaveLength(2);
    expect(throttled[1]!.at - throttled[0]!.at).toBeGreaterThanOrEqual(990);
    const broken = service.requests.filter((r) => r.path === '/mixed/broken');
    // Exponential backoff: 50 ms, then 100 ms.
    expect(broken[1]!.at - broken[0]!.at).toBeGreaterThanOrEqual(45);
    expect(broken[2]!.at - broken[1]!.at).toBeGreaterThanOrEqual(95);
  });

  it('marks a payload over the limit failed without a request or retries', async () => {
    const store = campaign('oversize', ['/oversize/0'], 'x'.repeat(4000));
    const counts = await runCampaign(store, 'oversize', options);
    expect(counts).toEqual({ sent: 1, delivered: 0, failed: 1, expired: 0 });
    expect(store.statusOf('oversize-0')).toMatchObject({
      status: 'failed',
      attempts: 1,
      failure: { statusCode: null, reason: 'push payload is 4000 bytes; Web Push allows at most 3993 bytes', host: '127.0.0.1' },
    });
    expect(service.countFor('/oversize/0')).toBe(0);
  });

  it('retries a push service it cannot reach, then marks the delivery failed with the network error class', async () => {
    const store = new InMemoryDeliveryStore();
    store.add({ id: 'down-0', campaignId: 'down', subscription: { endpoint: 'https://127.0.0.1:1/push/x', keys }, payload: 'x' });
    const pushServices = PushServiceAllowlist.fromSetting([service.origin, 'https://127.0.0.1:1']);
    const counts = await runCampaign(store, 'down', { ...options, pushServices, maxAttempts: 2, backoffMs: 10 });
    expect(counts).toEqual({ sent: 2, delivered: 0, failed: 1, expired: 0 });
    expect(store.statusOf('down-0')).toMatchObject({
      status: 'failed',
      attempts: 2,
      failure: { statusCode: null, reason: 'network: connection refused', host: '127.0.0.1' },
    });
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const store = campaign(
      'bounded',
      Array.from({ length: 120 }, (_, i) => `/bounded/${i}`),
    );
    let inFlight = 0;
    let peak = 0;
    const counts = await runCampaign(store, 'bounded', {
      ...options,
      concurrency: 7,
      send: async (delivery, sendOptions) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        try {
          return await sendPush(delivery.subscription, delivery.payload, sendOptions);
        } finally {
          inFlight -= 1;
        }
      },
    });
    expect(counts.delivered).toBe(120);
    expect(peak).toBe(7);
  });
});
