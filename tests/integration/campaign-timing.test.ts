// A campaign's timing on the real provider and sender: best-hour delivery (each subscriber at the hour they
// clicked most, on their own clock, a held-out share at once, figures split), and a send rate
// (throttlePerMinute) that spreads deliveries evenly, reports when it will finish, and stops on cancel.
import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../contract/owner-api.ts';
import { runningClock } from '../support/manual-clock.ts';
import { startProviderHarness, useProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { SITE_HASH, SITE_ORIGIN } from '../support/server.ts';
import { createThrowawayDatabase } from '../support/throwaway-postgres.ts';

const postgresUrl = process.env.PUSHKIT_TEST_DATABASE_URL;

const clock = runningClock();
const harness = useProviderHarness({ clock, rateLimit: false, pathPrefix: 'timing' });
const api = (method: 'GET' | 'POST', url: string, payload?: object) => harness.owner(method, url, payload);
const campaignOf = async (id: string) => (await api('GET', `/campaigns/${id}`)).json().campaign as Campaign;

/** Moves the clock and lets the provider's scheduler send what has come due. */
async function at(iso: string): Promise<void> {
  clock.set(iso);
  await harness.campaigns.tick();
  await harness.campaigns.idle();
}

async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const stop = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > stop) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Clicks of a subscriber in the past (its history): one `clicked` event at each time. */
async function clicked(subscriberId: string, times: string[]): Promise<void> {
  for (const time of times) {
    await harness.db.query(`INSERT INTO events (site_hash, subscriber_id, kind, created_at) VALUES ($1, $2, 'clicked', $3)`, [
      SITE_HASH,
      subscriberId,
      time,
    ]);
  }
}

describe('best-hour delivery', () => {
  it("reaches each subscriber at the hour they click most on their clock, else the site's, the held-out share at once", async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    clock.set('2026-11-27T06:30:00Z');
    // Paris (UTC+1) clicks at 18:xx local, New York (UTC-5) at 07:xx local; Tokyo and São Paulo never clicked
    const paris = await harness.subscribe({ fields: { userTimezone: 'Europe/Paris', userTimezoneOffset: '-60' } });
    const newYork = await harness.subscribe({ fields: { userTimezone: 'America/New_York', userTimezoneOffset: '300' } });
    const tokyo = await harness.subscribe({ fields: { userTimezone: 'Asia/Tokyo', userTimezoneOffset: '-540' } });
    const saoPaulo = await harness.subscribe({ fields: { userTimezone: 'America/Sao_Paulo', userTimezoneOffset: '180' } });
    await clicked(paris.id, ['2026-11-20T17:10:00Z', '2026-11-21T17:40:00Z', '2026-11-22T17:05:00Z', '2026-11-23T08:00:00Z']);
    await clicked(newYork.id, ['2026-11-20T12:15:00Z', '2026-11-24T12:50:00Z']);
    // older than 90 days: not counted
    await clicked(newYork.id, ['2026-08-01T03:00:00Z', '2026-08-02T03:00:00Z', '2026-08-03T03:00:00Z']);

    const created = await api('POST', '/campaigns', {
      title: 'Best hour',
      body: 'When you read',
      deliverAt: 'best-hour',
      bestHourHoldout: 0.25,
    });
    expect(created.statusCode, created.body).toBe(201);
    const { campaignId } = created.json() as { campaignId: string };
    await harness.campaigns.idle();
    // the held-out share (one of four, at random) went at once
    const everyone = [paris, newYork, tokyo, saoPaulo];
    const atOnce = everyone.filter((subscriber) => harness.received(subscriber.path) === 1);
    expect(atOnce).toHaveLength(1);
    const expected = new Map([
      [paris.path, '2026-11-27T17:00:00.000Z'], // 18:00 Paris
      [newYork.path, '2026-11-27T12:00:00.000Z'], // 07:00 New York
      // no clicks: the site's best hour, 18:00 on their own clock (most clicks, each on its clicker's clock)
      [tokyo.path, '2026-11-27T09:00:00.000Z'], // 18:00 Tokyo
      [saoPaulo.path, '2026-11-27T21:00:00.000Z'], // 18:00 São Paulo
    ]);
    const rest = everyone.filter((subscriber) => subscriber !== atOnce[0]);
    const waiting = await campaignOf(campaignId);
    expect(waiting).toMatchObject({ deliverAt: 'best-hour', status: 'sending', pending: 3, recipients: 4 });
    expect(waiting.estimatedFinishAt).toBe([...rest.map((subscriber) => expected.get(subscriber.path)!)].sort().at(-1));
    for (const subscriber of rest.sort((a, b) => expected.get(a.path)!.localeCompare(expected.get(b.path)!))) {
      const due = Date.parse(expected.get(subscriber.path)!);
      await at(new Date(due - 60_000).toISOString());
      expect(harness.received(subscriber.path), `${subscriber.path} before its hour`).toBe(0);
      await at(new Date(due).toISOString());
      expect(harness.received(subscriber.path), `${subscriber.path} at its hour`).toBe(1);
    }

    // one of the best-hour group clicks: the figures compare the groups
    const push = harness.deliveries(rest[0]!.path)[0]!;
    const click = await harness.app.inject({
      method: 'POST',
      url: '/notificationEvent',
      headers: { 'content-type': 'text/plain', origin: SITE_ORIGIN },
      payload: JSON.stringify({ hash: SITE_HASH, click: harness.messageOf(push).notification.data!.click, event: 'clicked' }),
    });
    expect(click.statusCode).toBe(200);
    const done = await campaignOf(campaignId);
    expect(done).toMatchObject({ status: 'done', delivered: 4, estimatedFinishAt: null });
    expect(done.bestHour).toEqual({
      holdoutShare: 0.25,
      bestHour: { recipients: 3, delivered: 3, clicked: 1, clickRate: 1 / 3 },
      holdout: { recipients: 1, delivered: 1, clicked: 0, clickRate: 0 },
    });
  });

  it('refuses what best-hour cannot go with, naming it', async () => {
    const refused = async (body: object) => {
      const reply = await api('POST', '/campaigns', { title: 'T', body: 'B', ...body });
      expect(reply.statusCode).toBe(400);
      return (reply.json() as { message: string }).message;
    };
    expect(await refused({ deliverAt: 'tonight' })).toBe('deliverAt: must be "best-hour"');
    expect(await refused({ deliverAt: 'best-hour', localTime: '09:00' })).toMatch(/^deliverAt: best-hour delivery picks/);
    expect(await refused({ bestHourHoldout: 0.2 })).toBe('bestHourHoldout: goes with deliverAt "best-hour"');
    expect(await refused({ deliverAt: 'best-hour', bestHourHoldout: 0.9 })).toBe('bestHourHoldout: must be 0.5 or less');
    expect(await refused({ throttlePerMinute: 0 })).toBe('throttlePerMinute: must be 1 or more');
  });
});

describe('a send rate', () => {
  it('spreads 60 deliveries at 600 a minute one slot (100 ms) apart, saying when it will finish', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    clock.set(Date.now());
    const subscribers = [];
    // subscribed 30 at a time through the real sync call
    for (let n = 0; n < 60; n += 30) subscribers.push(...(await Promise.all(Array.from({ length: 30 }, () => harness.subscribe()))));
    const paths = new Set(subscribers.map((subscriber) => subscriber.path));
    const arrivals = () => harness.deliveries().filter((push) => paths.has(push.path));

    const before = Date.now();
    const created = await api('POST', '/campaigns', { title: 'Slow', body: 'and steady', throttlePerMinute: 600 });
    expect(created.statusCode, created.body).toBe(201);
    const { campaignId } = created.json() as { campaignId: string };
    const sending = await campaignOf(campaignId);
    const after = Date.now();
    expect(sending.throttlePerMinute).toBe(600);
    // 60 at 10 a second: the last slot 5.9 s after the first (from the next free slot: one more while one is sent)
    const finish = Date.parse(sending.estimatedFinishAt!);
    expect(finish - before).toBeGreaterThanOrEqual(4_900);
    expect(finish - after).toBeLessThanOrEqual(6_000);
    await until(() => arrivals().length === 60, 30_000);
    const times = arrivals()
      .map((push) => push.at)
      .sort((a, b) => a - b);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(4_400);
    // each no sooner than its slot after the first's, 100 ms apart, less 1.5 s (a runner that fell behind catches up
    // a second; a send's delay varies)
    for (const [index, time] of times.entries()) expect(time - times[0]!, `delivery ${index}`).toBeGreaterThanOrEqual(index * 100 - 1_500);
    // evenly: no 2 s window carries more than its 20 and 1.5 s of slots
    for (const [index, start] of times.entries()) {
      const inWindow = times.slice(index).findIndex((time) => time >= start + 2_000);
      expect(inWindow === -1 ? times.length - index : inWindow).toBeLessThanOrEqual(35);
    }
    expect(new Set(arrivals().map((push) => push.path)).size).toBe(60);
    await harness.campaigns.idle();
    expect(await campaignOf(campaignId)).toMatchObject({ status: 'done', delivered: 60, estimatedFinishAt: null });

    // at one a second, cancelled after the first: the rest never goes
    const slow = (await api('POST', '/campaigns', { title: 'Slower', body: 'cancelled', throttlePerMinute: 60 })).json() as {
      campaignId: string;
    };
    await until(() => arrivals().length >= 61, 10_000);
    const cancelled = await api('POST', `/campaigns/${slow.campaignId}/cancel`);
    expect(cancelled.statusCode).toBe(200);
    const sentBeforeCancel = arrivals().length;
    // the run ends once it finds nothing left; one claimed before the cancel may still go
    await harness.campaigns.idle();
    expect(arrivals().length - sentBeforeCancel).toBeLessThanOrEqual(1);
    expect(await campaignOf(slow.campaignId)).toMatchObject({ status: 'cancelled', pending: 0 });
  }, 60_000);
});

describe.skipIf(!postgresUrl)('a send rate on PostgreSQL', () => {
  it('is shared by two providers on one database, not had by each', async () => {
    const database = await createThrowawayDatabase(postgresUrl!, 'pushkit_throttle');
    const logs: string[][] = [[], []];
    const providers: ProviderHarness[] = [];
    try {
      for (const log of logs) {
        providers.push(
          await startProviderHarness({
            database: database.url,
            service: harness.service,
            vapid: harness.vapid,
            rateLimit: false,
            pathPrefix: 'shared',
            campaigns: { log: (line) => log.push(line) },
          }),
        );
      }
      const [first, second] = providers as [ProviderHarness, ProviderHarness];
      // subscribed all at once through the real sync call
      const paths = new Set((await Promise.all(Array.from({ length: 40 }, () => first.subscribe()))).map((subscriber) => subscriber.path));
      const arrivals = () => harness.deliveries().filter((push) => paths.has(push.path));
      const created = await first.owner('POST', '/campaigns', { title: 'Shared', body: 'rate', throttlePerMinute: 600 });
      expect(created.statusCode, created.body).toBe(201);
      // the second provider's scheduler finds it at once
      expect(await second.campaigns.tick()).toBe(1);
      await until(() => arrivals().length === 40, 30_000);
      await Promise.all([first.campaigns.idle(), second.campaigns.idle()]);
      const times = arrivals()
        .map((push) => push.at)
        .sort((a, b) => a - b);
      // 40 at 10 a second between them: about 4 s (each at the full rate would take 2 s)
      expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(3_000);
      expect(new Set(arrivals().map((push) => push.path)).size).toBe(40);
      // both sent a share
      for (const log of logs) expect(log.join('\n')).toMatch(/: [1-9]\d* delivered/);
    } finally {
      for (const provider of providers) await provider.close();
      await database.drop();
    }
  }, 60_000);
});
