// Scheduled campaigns on the real provider, with a clock the test moves: a send time, a local time reached
// zone by zone (Paris, then New York), a schedule that survives a restart of the provider, cancelling.
import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../contract/owner-api.ts';
import { manualClock } from '../support/manual-clock.ts';
import { useProviderHarness } from '../support/provider-harness.ts';

/** The provider's clock, moved by the test. */
const clock = manualClock('2026-11-23T20:00:00Z');
const harness = useProviderHarness({ clock, rateLimit: false, pathPrefix: 'schedule' });

/** A subscriber in a time zone, stored by the real sync call; returns its push service path. */
const subscribe = async (zone: { userTimezone?: string; userTimezoneOffset?: string }) =>
  (await harness.subscribe({ fields: zone as Record<string, string> })).path;
const api = (method: 'GET' | 'POST', url: string, payload?: object) => harness.owner(method, url, payload);

const campaignOf = async (id: string) => (await api('GET', `/campaigns/${id}`)).json().campaign as Campaign;
const received = (path: string) => harness.received(path);

/** Moves the clock and lets the provider's scheduler send what has come due. */
async function at(iso: string): Promise<void> {
  clock.set(iso);
  await harness.campaigns.tick();
  await harness.campaigns.idle();
}

describe('a campaign at a local time', () => {
  it('reaches each time zone when its own clock shows the time, across a restart of the provider', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    const paris = await subscribe({ userTimezone: 'Europe/Paris', userTimezoneOffset: '-60' });
    const newYork = await subscribe({ userTimezone: 'America/New_York', userTimezoneOffset: '300' });
    const stored = await harness.db.query<{ timezone: string }>('SELECT timezone FROM subscribers WHERE status = $1 ORDER BY created_at', [
      'subscribed',
    ]);
    expect(stored.rows.map((row) => row.timezone)).toEqual(['Europe/Paris', 'America/New_York']);

    const created = await api('POST', '/campaigns', { title: 'Good morning', body: 'Fresh ink', localTime: '09:00' });
    expect(created.statusCode).toBe(201);
    const { campaignId } = created.json() as { campaignId: string };
    expect(await campaignOf(campaignId)).toMatchObject({
      status: 'scheduled',
      localTime: '09:00',
      recipients: 2,
      pending: 2,
      nextDueAt: '2026-11-24T08:00:00.000Z',
    });
    await at('2026-11-24T07:59:00Z');
    expect([received(paris), received(newYork)]).toEqual([0, 0]);

    // The provider stops; the next one finds the schedule in the database.
    await harness.stop();
    clock.set('2026-11-24T08:00:00Z');
    await harness.start();
    await harness.campaigns.idle();
    await at('2026-11-24T08:00:00Z');
    expect([received(paris), received(newYork)]).toEqual([1, 0]);
    expect(await campaignOf(campaignId)).toMatchObject({
      status: 'sending',
      delivered: 1,
      pending: 1,
      nextDueAt: '2026-11-24T14:00:00.000Z',
    });

    await at('2026-11-24T13:59:00Z');
    expect(received(newYork)).toBe(0);
    await at('2026-11-24T14:00:00Z');
    expect([received(paris), received(newYork)]).toEqual([1, 1]);
    expect(await campaignOf(campaignId)).toMatchObject({ status: 'done', delivered: 2, pending: 0 });
  });
});

describe('a campaign at a send time', () => {
  it('waits for its time, then goes to everyone', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    const one = await subscribe({ userTimezone: 'Asia/Tokyo' });
    const two = await subscribe({});
    clock.set('2026-11-25T10:00:00Z');
    const created = await api('POST', '/campaigns', { title: 'Noon', body: 'sale', sendAt: '2026-11-25T12:00:00+01:00' });
    const { campaignId } = created.json() as { campaignId: string };
    expect(await campaignOf(campaignId)).toMatchObject({ status: 'scheduled', sendAt: '2026-11-25T11:00:00.000Z' });
    await at('2026-11-25T10:59:59Z');
    expect([received(one), received(two)]).toEqual([0, 0]);
    await at('2026-11-25T11:00:00Z');
    expect([received(one), received(two)]).toEqual([1, 1]);
    expect((await campaignOf(campaignId)).status).toBe('done');
    const again = await api('POST', `/campaigns/${campaignId}/cancel`);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: 'E_CAMPAIGN_NOT_CANCELLABLE',
      message: `id: campaign ${campaignId} is done; only a scheduled or sending campaign can be cancelled`,
    });
  });

  it('cancelled before its time, sends nothing', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    const path = await subscribe({ userTimezone: 'Europe/Paris' });
    clock.set('2026-11-26T10:00:00Z');
    const { campaignId } = (
      await api('POST', '/campaigns', { title: 'Never', body: 'cancelled', sendAt: '2026-11-26T11:00:00Z' })
    ).json() as {
      campaignId: string;
    };
    const cancelled = await api('POST', `/campaigns/${campaignId}/cancel`);
    expect(cancelled.json()).toEqual({ status: 'success', campaignId, cancelled: 1 });
    await at('2026-11-26T12:00:00Z');
    expect(received(path)).toBe(0);
    expect(await campaignOf(campaignId)).toMatchObject({ status: 'cancelled', pending: 0, delivered: 0 });
    expect((await api('POST', '/campaigns/987654/cancel')).statusCode).toBe(404);
  });

  it('refuses a send time or local time it cannot read, naming it', async () => {
    const refused = async (body: object) => {
      const reply = await api('POST', '/campaigns', { title: 'T', body: 'B', ...body });
      expect(reply.statusCode).toBe(400);
      return (reply.json() as { message: string }).message;
    };
    expect(await refused({ sendAt: 'tomorrow' })).toBe('sendAt: must be an ISO 8601 time with its offset, such as 2026-12-01T09:00:00Z');
    expect(await refused({ sendAt: '2026-12-01T09:00:00' })).toMatch(/^sendAt: must be an ISO 8601 time with its offset/);
    expect(await refused({ localTime: '25:00' })).toBe('localTime: must be a time of day such as 09:30 (24-hour HH:MM)');
    expect(await refused({ localTime: 930 })).toBe('localTime: must be a time of day such as 09:30');
  });
});
