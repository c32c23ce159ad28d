// A site's campaign guardrails on the real provider: quiet hours on each subscriber's own clock (a message
// waits for their end, or is dropped when its TTL runs out first), a frequency cap (capped subscribers are
// skipped and counted), and a campaign's own Topic header.
import { describe, expect, it } from 'vitest';
import type { HostedSite } from '../../server/sites.ts';
import type { Campaign } from '../../contract/owner-api.ts';
import { manualClock } from '../support/manual-clock.ts';
import { useProviderHarness } from '../support/provider-harness.ts';
import { testSite } from '../support/server.ts';

const plain = testSite();
const site: HostedSite = {
  ...plain,
  config: {
    ...plain.config,
    campaignGuardrails: { quietHours: { start: '21:00', end: '08:00' }, frequencyCap: { max: 2, per: 'day' } },
  },
};
/** The provider's clock, moved by the test. */
const clock = manualClock('2030-01-14T21:00:00Z');
const harness = useProviderHarness({ sites: [site], clock, rateLimit: false, pathPrefix: 'guardrails' });

const subscribe = async (zone: Record<string, string>) => (await harness.subscribe({ fields: zone })).path;
const api = (method: 'GET' | 'POST', url: string, payload?: object) => harness.owner(method, url, payload);
const campaignOf = async (id: string) => (await api('GET', `/campaigns/${id}`)).json().campaign as Campaign;
const received = (path: string) => harness.received(path);

/** Sends a campaign now and waits until the provider has done what it can. */
async function send(body: object): Promise<string> {
  const created = await api('POST', '/campaigns', { title: 'Guarded', body: 'message', ...body });
  expect(created.statusCode).toBe(201);
  await harness.campaigns.idle();
  return (created.json() as { campaignId: string }).campaignId;
}

async function at(iso: string): Promise<void> {
  clock.set(iso);
  await harness.campaigns.tick();
  await harness.campaigns.idle();
}

describe('quiet hours on the subscriber clock (21:00 to 08:00)', () => {
  it('hold a message until they end, or drop it when its TTL runs out first', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
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
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    // the real time, so the cap counts the deliveries just recorded; the subscriber's clock shows noon
    clock.set(Date.now());
    const utcMinutes = Math.floor((clock() % 86_400_000) / 60_000);
    const path = await subscribe({ userTimezoneOffset: String(utcMinutes - 720) });
    await send({});
    await send({});
    const third = await send({});
    expect(received(path)).toBe(2);
    expect(await campaignOf(third)).toMatchObject({ status: 'done', capped: 1, delivered: 0, recipients: 1 });
    const delivery = await harness.db.query<{ status: string; last_error: string }>(
      'SELECT status, last_error FROM deliveries WHERE campaign_id = $1',
      [third],
    );
    expect(delivery.rows).toEqual([{ status: 'capped', last_error: 'frequency cap: 2 per day reached' }]);
  });
});

describe("a campaign's topic", () => {
  it('is its Topic header, and a topic a push service would refuse is refused naming it', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    clock.set('2030-02-01T12:00:00Z');
    const path = await subscribe({ userTimezone: 'UTC' });
    await send({ topic: 'spring-sale', urgency: 'low', ttl: 600 });
    const request = harness.deliveries(path)[0]!;
    expect([request.headers.topic, request.headers.urgency, request.headers.ttl]).toEqual(['spring-sale', 'low', '600']);
    const refused = await api('POST', '/campaigns', { title: 'T', body: 'B', topic: 'spring sale!' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe('topic: must be 1 to 32 letters, digits, "_" or "-" (RFC 8030 topic)');
  });
});
