// Issue 27, item 1: anyone can mint subscribers (insert needs no proof), with made-up endpoints the real push
// service refuses. Such a subscriber proves itself perfectly (it holds its own secret and endpoint), so what
// must stop it moving the owner's figures is the delivery: a report counts only for a message the push service
// took, within its TTL. Each figure an owner decides on is attacked here through the real sender and provider.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clickTokenOf } from '../../server/campaigns/click-token.ts';
import type { Campaign } from '../../contract/owner-api.ts';
import type { Automation } from '../../contract/automations.ts';
import { useProviderHarness, type Subscribed } from '../support/provider-harness.ts';
import { SITE_ORIGIN } from '../support/server.ts';

const harness = useProviderHarness({ rateLimit: false, automationPollMs: 0, pathPrefix: 'figures' });

let minted = 0;
/** A subscriber anyone can make: a real insert, an endpoint the push service does not know (404, as FCM answers). */
async function mint(): Promise<Subscribed> {
  minted += 1;
  const path = `/minted/${minted}`;
  harness.service.answer(path, { status: 404 });
  return harness.subscribe({ path });
}

const report = (fields: Record<string, unknown>) =>
  harness.app.inject({ method: 'POST', url: '/notificationEvent', payload: { hash: harness.site.hash, ...fields } });

/** What the attacker sends for each of its subscribers: the endpoint way and its own click token, each kind. */
async function forgeReports(campaignId: string, subscribers: Subscribed[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const subscriber of subscribers) {
    const { rows } = await harness.db.query<{ id: string }>('SELECT id FROM deliveries WHERE campaign_id = $1 AND subscriber_id = $2', [
      campaignId,
      subscriber.id,
    ]);
    const secretHash = createHash('sha256').update(subscriber.secret).digest('hex');
    for (const event of ['shown', 'clicked', 'closed']) {
      statuses.push((await report({ campaignId, endpoint: subscriber.endpoint, event })).statusCode);
      if (rows[0]) statuses.push((await report({ click: clickTokenOf(String(rows[0].id), secretHash), event })).statusCode);
    }
  }
  return statuses;
}

const campaign = async (id: string) => (await harness.owner('GET', `/campaigns/${id}`)).json().campaign as Campaign;

async function send(body: Record<string, unknown>): Promise<string> {
  const created = await harness.owner('POST', '/campaigns', { title: 'Spring letters', body: 'New pieces', ...body });
  expect(created.statusCode).toBe(201);
  return (created.json() as { campaignId: string }).campaignId;
}

describe('minted subscribers move no figure', () => {
  it('of a campaign that has not gone out: shown, clicked and closed stay 0, whichever way they report', async () => {
    const attackers = [await mint(), await mint(), await mint()];
    const campaignId = await send({ sendAt: '2099-01-01T09:00:00Z' });
    const statuses = await forgeReports(campaignId, attackers);
    expect(new Set(statuses)).toEqual(new Set([403]));
    expect(await campaign(campaignId)).toMatchObject({
      delivered: 0,
      shown: 0,
      clicked: 0,
      closed: 0,
      reportsWithToken: 0,
      reportsWithEndpoint: 0,
    });
  });

  it('of a campaign sent to them and to a real subscriber: only the real one counts, and the figures say how it proved itself', async () => {
    const attackers = [await mint(), await mint()];
    const real = await harness.subscribe({ path: '/figures/real-1' });
    const campaignId = await send({});
    await harness.campaigns.idle();
    expect(await campaign(campaignId)).toMatchObject({ recipients: expect.any(Number), delivered: expect.any(Number) });
    expect(new Set(await forgeReports(campaignId, attackers))).toEqual(new Set([403]));

    const [message] = harness.messages(real.path);
    expect((await report({ click: message!.notification.data!.click, event: 'shown' })).statusCode).toBe(200);
    expect((await report({ campaignId, endpoint: real.endpoint, event: 'clicked' })).statusCode).toBe(200);
    const figures = await campaign(campaignId);
    expect(figures).toMatchObject({ shown: 1, clicked: 1, closed: 0, reportsWithToken: 1, reportsWithEndpoint: 1 });
    expect(figures.clickRate).toBe(1 / figures.delivered);
  });

  it("of an A/B test: the variants' clicks, and so the winner, stay those of real subscribers", async () => {
    const attackers = [await mint(), await mint(), await mint(), await mint()];
    const campaignId = await send({ variants: [{}, { title: 'Twelve new letters' }], testFraction: 0.9, winnerAfterMinutes: 60 });
    await harness.campaigns.idle();
    await forgeReports(campaignId, attackers);
    const figures = await campaign(campaignId);
    expect(figures.variants.map((variant) => variant.clicked)).toEqual([0, 0]);
    expect(figures.clicked).toBe(0);
  });

  it('of an automation: its welcome to a minted subscriber failed at the push service, and a click on it counts nothing', async () => {
    expect(
      (await harness.owner('PATCH', '/automations/welcome', { enabled: true, delayMinutes: 0, url: `${SITE_ORIGIN}/welcome` })).statusCode,
    ).toBe(200);
    const attacker = await mint();
    await harness.automations.runDue();
    const { rows } = await harness.db.query<{ id: string }>(
      `SELECT id FROM campaigns WHERE automation = 'welcome' AND subscriber_id = $1`,
      [attacker.id],
    );
    expect(rows).toHaveLength(1);
    expect(new Set(await forgeReports(String(rows[0]!.id), [attacker]))).toEqual(new Set([403]));
    const welcome = (await harness.owner('GET', '/automations/welcome')).json().automation as Automation;
    expect(welcome.stats).toMatchObject({ clicked: 0, conversions: 0 });
    await harness.owner('PATCH', '/automations/welcome', { enabled: false });
  });

  it("of conversions: a minted subscriber named as an order's buyer converts nothing", async () => {
    const attacker = await mint();
    const campaignId = await send({ subscriberId: attacker.id });
    await harness.campaigns.idle();
    await forgeReports(campaignId, [attacker]);
    const order = await harness.app.inject({
      method: 'POST',
      url: '/api/v1/shopify/orders',
      headers: { authorization: `Bearer ${harness.ownerKey}` },
      payload: {
        hash: harness.site.hash,
        orderId: `forged-${attacker.id.slice(0, 8)}`,
        order: { total: 99, items: [] },
        subscriberId: attacker.id,
      },
    });
    expect(order.statusCode).toBe(201);
    expect(await campaign(campaignId)).toMatchObject({ delivered: 0, clicked: 0, conversions: 0 });
  });
});

describe("a real subscriber's reports", () => {
  it("stop counting once the message's TTL has run out since the push service took it", async () => {
    const real = await harness.subscribe({ path: '/figures/real-late' });
    const campaignId = await send({ subscriberId: real.id, ttl: 3600 });
    await harness.campaigns.idle();
    // the push service took it two hours ago
    await harness.db.query(`UPDATE deliveries SET updated_at = now() - interval '2 hours' WHERE campaign_id = $1`, [campaignId]);
    const late = await report({ campaignId, endpoint: real.endpoint, event: 'clicked' });
    expect(late.statusCode).toBe(403);
    expect(late.json()).toMatchObject({ code: 'E_NOTIFICATION_REPORT_LATE' });
    expect(await campaign(campaignId)).toMatchObject({ delivered: 1, clicked: 0 });
  });
});
