import { Agent as HttpsAgent } from 'node:https';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePushConnections, parseRetryAfter, sendPush, type SendPushOptions } from '../../server/push/send.js';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.js';
import {
  createSubscriberKeys,
  decryptPushBody,
  startFakePushService,
  verifyVapidAuthorization,
  type FakePushService,
} from '../support/fake-push-service.js';

const webPush = createRequire(import.meta.url)('web-push') as {
  sendNotification(
    subscription: { endpoint: string; keys: { p256dh: string; auth: string } },
    payload: string,
    options: { vapidDetails: { subject: string; publicKey: string; privateKey: string }; agent: HttpsAgent; TTL: number },
  ): Promise<{ statusCode: number }>;
};

let service: FakePushService;
const vapid = generateVapidKeyPair();
let options: SendPushOptions;

beforeAll(async () => {
  service = await startFakePushService();
  options = { vapid, subject: 'mailto:owner@example.com', ca: service.ca, pushServices: service.pushServices };
});
afterAll(async () => {
  await closePushConnections();
  await service.close();
});

describe('sendPush against a fake HTTPS push service', () => {
  it('201: delivered; the service receives an aes128gcm body it decrypts and a VAPID JWT that verifies', async () => {
    const keys = createSubscriberKeys();
    const payload = JSON.stringify({ title: 'Hello', body: 'World', url: 'https://shop.example/sale' });
    const result = await sendPush({ endpoint: `${service.origin}/push/ok`, keys }, payload, {
      ...options,
      ttl: 3600,
      urgency: 'high',
      topic: 'sale-2026',
    });
    expect(result).toEqual({ outcome: 'delivered', statusCode: 201 });
    const recorded = service.requests.find((r) => r.path === '/push/ok')!;
    expect(recorded.headers['content-encoding']).toBe('aes128gcm');
    expect(recorded.headers.ttl).toBe('3600');
    expect(recorded.headers.urgency).toBe('high');
    expect(recorded.headers.topic).toBe('sale-2026');
    expect(decryptPushBody(recorded.body, keys).toString()).toBe(payload);
    const { claims } = verifyVapidAuthorization(recorded.headers.authorization as string, vapid.publicKey);
    expect(claims.aud).toBe(service.origin);
    expect(claims.sub).toBe('mailto:owner@example.com');
  });

  it('reuses the VAPID token for every message to the same origin', async () => {
    const keys = createSubscriberKeys();
    await sendPush({ endpoint: `${service.origin}/push/reuse-1`, keys }, 'a', options);
    await sendPush({ endpoint: `${service.origin}/push/reuse-2`, keys }, 'b', options);
    const [one, two] = ['/push/reuse-1', '/push/reuse-2'].map((p) => service.requests.find((r) => r.path === p)!.headers.authorization);
    expect(one).toBe(two);
  });

  it('410 and 404: expired', async () => {
    service.answer('/push/gone', { status: 410 });
    service.answer('/push/unknown', { status: 404 });
    const keys = createSubscriberKeys();
    expect((await sendPush({ endpoint: `${service.origin}/push/gone`, keys }, 'x', options)).outcome).toBe('expired');
    expect((await sendPush({ endpoint: `${service.origin}/push/unknown`, keys }, 'x', options)).outcome).toBe('expired');
  });

  it('429 and 500: retry, with Retry-After in milliseconds', async () => {
    service.answer('/push/throttled', { status: 429, retryAfter: '7' });
    service.answer('/push/broken', { status: 500 });
    const keys = createSubscriberKeys();
    expect(await sendPush({ endpoint: `${service.origin}/push/throttled`, keys }, 'x', options)).toEqual({
      outcome: 'retry',
      statusCode: 429,
      detail: '429: fake push service says 429',
      reason: 'fake push service says 429',
      retryAfterMs: 7000,
    });
    expect(await sendPush({ endpoint: `${service.origin}/push/broken`, keys }, 'x', options)).toEqual({
      outcome: 'retry',
      statusCode: 500,
      detail: '500: fake push service says 500',
      reason: 'fake push service says 500',
    });
  });

  it('other 4xx: failed with the response text', async () => {
    service.answer('/push/bad', { status: 400 });
    const result = await sendPush({ endpoint: `${service.origin}/push/bad`, keys: createSubscriberKeys() }, 'x', options);
    expect(result).toEqual({
      outcome: 'failed',
      statusCode: 400,
      detail: '400: fake push service says 400',
      reason: 'fake push service says 400',
    });
  });

  it('refuses a payload over the limit before any request', async () => {
    const before = service.requests.length;
    await expect(
      sendPush({ endpoint: `${service.origin}/push/big`, keys: createSubscriberKeys() }, 'x'.repeat(4096), options),
    ).rejects.toThrow('push payload is 4096 bytes; Web Push allows at most 3993 bytes');
    expect(service.requests.length).toBe(before);
  });

  it('refuses plain http endpoints and bad header values', async () => {
    const keys = createSubscriberKeys();
    await expect(sendPush({ endpoint: 'http://127.0.0.1:1/x', keys }, 'x', options)).rejects.toThrow('push endpoint must be https');
    await expect(sendPush({ endpoint: `${service.origin}/x`, keys }, 'x', { ...options, topic: 'has spaces' })).rejects.toThrow(
      'push topic must be',
    );
    await expect(sendPush({ endpoint: `${service.origin}/x`, keys }, 'x', { ...options, ttl: -1 })).rejects.toThrow('push TTL must be');
  });
});

describe('the fake push service', () => {
  it('decrypts and verifies what the web-push package sends, as it does for sendPush', async () => {
    const keys = createSubscriberKeys();
    const agent = new HttpsAgent({ ca: service.ca });
    const response = await webPush.sendNotification({ endpoint: `${service.origin}/push/web-push`, keys }, 'from web-push', {
      vapidDetails: { subject: 'mailto:owner@example.com', publicKey: vapid.publicKey, privateKey: vapid.privateKey },
      agent,
      TTL: 60,
    });
    agent.destroy();
    expect(response.statusCode).toBe(201);
    const recorded = service.requests.find((r) => r.path === '/push/web-push')!;
    expect(decryptPushBody(recorded.body, keys).toString()).toBe('from web-push');
    expect(verifyVapidAuthorization(recorded.headers.authorization as string, vapid.publicKey).claims.aud).toBe(service.origin);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
