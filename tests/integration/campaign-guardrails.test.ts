// A site's campaign guardrails on the real provider: quiet hours on each subscriber's own clock (a message
// waits for their end, or is dropped when its TTL runs out first), a frequency cap (capped subscribers are
// skipped and counted), and a campaign's own Topic header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProvider, type Provider } from '../../server/start-provider.ts';
import type { Clock } from '../../server/clock.ts';
import { closePushConnections } from '../../server/push/send.ts';
import { vapidKeyFile } from '../../server/state-paths.ts';
import type { HostedSite } from '../../server/sites.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import type { Campaign } from '../../contract/owner-api.ts';
import { createSubscriberKeys, startFakePushService, type FakePushService } from '../support/fake-push-service.ts';
import { postSync, SITE_HASH, tempDir, testSite } from '../support/server.ts';

const vapid = generateVapidKeyPair();
const keys = createSubscriberKeys();
const plain = testSite();
const site: HostedSite = {
  ...plain,
  config: {
    ...plain.config,
    vapidPublicKey: vapid.publicKey,
    campaignGuardrails: { quietHours: { start: '21:00', end: '08:00' }, frequencyCap: { max: 2, per: 'day' } },
  },
};
let state: { path: string; remove: () => Promise<void> };
let service: FakePushService;
let provider: Provider;
let ownerKey: string;
/** The provider's clock, moved by the test. */
const clock: Clock & { time: number } = Object.assign(() => clock.time, { time: Date.parse('2030-01-14T21:00:00Z') });

beforeAll(async () => {
  state = await tempDir('pushkit-guardrails-');
  await writeVapidKeyFile(vapidKeyFile(state.path, site.name), vapid);
  service = await startFakePushService();
  provider = await startProvider({
    sites: [site],
    stateDir: state.path,
    rateLimit: false,
    pushServices: [service.origin],
    campaigns: { ca: service.ca, clock, log: () => undefined },
  });
  ownerKey = provider.ownerKeys.get(site.name)!;
});
afterAll(async () => {
  await provider?.close();
  await closePushConnections();
  await service.close();
  await state.remove();
});

let count = 0;
async function subscribe(zone: Record<string, string>): Promise<string> {
  count += 1;
  const path = `/guardrails/${count}`;
  const reply = await postSync(provider.app, {
    hash: SITE_HASH,
    action: 'insert',
    subscription: JSON.stringify({
      endpoint: `${service.origin}${path}`,
      expirationTime: null,
      keys: { p256dh: keys.p256dh, auth: keys.auth },
    }),
    subscriptionId: `guardrails-${count}`,
    ...zone,
  });
  expect(reply.statusCode).toBe(200);
  return path;
}

const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
  provider.app.inject({
    method,
    url: `/api/v1/sites/letters${url}`,
    headers: { authorization: `Bearer ${ownerKey}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload } : {}),
  });
const campaignOf = async (id: string) => (await api('GET', `/campaigns/${id}`)).json().campaign as Campaign;
const received = (path: string) => service.requests.filter((request) => request.path === path).length;

/** Sends a campaign now and waits until the provider has done what it can. */
async function send(body: object): Promise<string> {
  const created = await api('POST', '/campaigns', { title: 'Guarded', body: 'message', ...body });
  expect(created.statusCode).toBe(201);
  await provider.campaigns.idle();
  return (created.json() as { campaignId: string }).campaignId;
}

async function at(iso: string): Promise<void> {
  clock.time = Date.parse(iso);
  await provider.campaigns.tick();
  await provider.campaigns.idle();
}

describe('quiet hours on the subscriber clock (21:00 to 08:00)', () => {
  it('hold a message until they end, or drop it when its TTL runs out first', async () => {
    await provider.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    // 21:00 UTC: 22:00 in Paris and 06:00 in Tokyo (quiet), 16:00 in New York
    const paris = await subscribe({ userTimezone: 'Europe/Paris' });
    const tokyo = await subscribe({ userTimezone: 'Asia/Tokyo' });
    const newYork = await subscribe({ userTimezone: 'America/New_York' });

    const long = await send({ ttl: 12 * 3600 });
    expect([received(paris), received(tokyo), received(newYork)]).toEqual([0, 0, 1]);
    expect(await campaignOf(long)).toMatchObject({ delivered: 1, pending: 2, dropped: 0, nextDueAt: '2030-01-14T23:00:00.000Z' });

    const short = await send({ ttl: 3600 });
    expect([received(paris), received(tokyo), received(newYork)]).toEqual([0, 0, 2]);
    expect(await campaignOf(short)).toMatchObject({ status: 'done', delivered: 1, dropped: 2, pending: 0 });

    await at('2030-01-14T22:59:00Z');
    expect(received(tokyo)).toBe(0);
    await at('2030-01-14T23:00:00Z');
    expect([received(paris), received(tokyo)]).toEqual([0, 1]);
    await at('2030-01-15T07:00:00Z');
    expect([received(paris), received(tokyo), received(newYork)]).toEqual([1, 1, 2]);
    expect(await campaignOf(long)).toMatchObject({ status: 'done', delivered: 3, pending: 0 });
  });
});

describe('the frequency cap (2 a day)', () => {
  it('skips a subscriber who had 2 notifications in the last day, and counts them', async () => {
    await provider.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    // the real time, so the cap counts the deliveries just recorded; the subscriber's clock shows noon
    clock.time = Date.now();
    const utcMinutes = Math.floor((clock.time % 86_400_000) / 60_000);
    const path = await subscribe({ userTimezoneOffset: String(utcMinutes - 720) });
    await send({});
    await send({});
    const third = await send({});
    expect(received(path)).toBe(2);
    expect(await campaignOf(third)).toMatchObject({ status: 'done', capped: 1, delivered: 0, recipients: 1 });
    const delivery = await provider.db.query<{ status: string; last_error: string }>(
      'SELECT status, last_error FROM deliveries WHERE campaign_id = $1',
      [third],
    );
    expect(delivery.rows).toEqual([{ status: 'capped', last_error: 'frequency cap: 2 per day reached' }]);
  });
});

describe("a campaign's topic", () => {
  it('is its Topic header, and a topic a push service would refuse is refused naming it', async () => {
    await provider.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    clock.time = Date.parse('2030-02-01T12:00:00Z');
    const path = await subscribe({ userTimezone: 'UTC' });
    await send({ topic: 'spring-sale', urgency: 'low', ttl: 600 });
    const request = service.requests.filter((entry) => entry.path === path)[0]!;
    expect([request.headers.topic, request.headers.urgency, request.headers.ttl]).toEqual(['spring-sale', 'low', '600']);
    const refused = await api('POST', '/campaigns', { title: 'T', body: 'B', topic: 'spring sale!' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe('topic: must be 1 to 32 letters, digits, "_" or "-" (RFC 8030 topic)');
  });
});
