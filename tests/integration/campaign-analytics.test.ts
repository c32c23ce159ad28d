// A campaign's figures as the owner API reports them: shown, clicked, closed, click rate, and conversions (a
// shop order of a subscriber who clicked, within the site's conversionWindowHours after the click).
import { describe, expect, it } from 'vitest';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import { sendCampaign } from '../../server/campaigns/campaign-sender.ts';
import type { Campaign, NotificationDay, SiteStats } from '../../contract/owner-api.ts';
import { useProviderHarness } from '../support/provider-harness.ts';
import { SITE_HASH, SITE_ORIGIN, testSite } from '../support/server.ts';

const plain = testSite();
const harness = useProviderHarness({
  via: 'createApp',
  sites: [{ ...plain, config: { ...plain.config, conversionWindowHours: 24 } }],
  rateLimit: false,
  pathPrefix: 'analytics',
});

const subscribe = async (name: string) => (await harness.subscribe({ path: `/analytics/${name}` })).id;
const owner = (method: 'GET' | 'POST', url: string, payload?: object) => harness.owner(method, url, payload);
const report = (body: object) =>
  harness.app.inject({
    method: 'POST',
    url: '/notificationEvent',
    headers: { 'content-type': 'text/plain', origin: SITE_ORIGIN },
    payload: JSON.stringify({ hash: SITE_HASH, ...body }),
  });
const order = (orderId: string, subscriberId: string) =>
  owner('POST', '/api/v1/shopify/orders', {
    hash: SITE_HASH,
    orderId,
    subscriberId,
    order: { total: 40, items: [{ pId: 1, pName: 'Nib set', pPrice: 40, pQuant: 1 }] },
  });

describe('campaign analytics', () => {
  it('counts shown, clicked and closed once per subscriber, the click rate, and orders after a click as conversions', async () => {
    const clicker = await subscribe('clicker');
    const other = await subscribe('other');
    await subscribe('third');
    const { campaignId } = await createCampaign(harness.db, harness.site, {
      title: 'Nibs',
      body: 'New nibs',
      url: `${SITE_ORIGIN}/nibs`,
      ttl: 60,
      urgency: 'normal',
    });
    await sendCampaign(harness.db, harness.site, campaignId, harness.vapid, {
      ca: harness.service.ca,
      pushServices: harness.service.pushServices,
    });
    const tokenOf = (name: string) => {
      const message = harness.messages(`/analytics/${name}`)[0]!;
      return message.notification.data!.click!;
    };
    for (const name of ['clicker', 'other', 'third']) expect((await report({ click: tokenOf(name), event: 'shown' })).statusCode).toBe(200);
    await report({ click: tokenOf('clicker'), event: 'clicked' });
    await report({ click: tokenOf('clicker'), event: 'clicked' });
    await report({ click: tokenOf('other'), event: 'closed' });

    // the clicker orders twice (one too late), the other subscriber orders without a click
    expect((await order('A-1', clicker)).statusCode).toBe(201);
    expect((await order('A-2', clicker)).statusCode).toBe(201);
    expect((await order('B-1', other)).statusCode).toBe(201);
    await harness.db.query(`UPDATE shop_orders SET created_at = now() + interval '25 hours' WHERE order_id = 'A-2'`);
    // an order placed before the click is not the campaign's doing
    expect((await order('A-0', clicker)).statusCode).toBe(201);
    await harness.db.query(`UPDATE shop_orders SET created_at = now() - interval '1 hour' WHERE order_id = 'A-0'`);

    const reply = await owner('GET', `/api/v1/sites/letters/campaigns/${campaignId}`);
    const campaign = reply.json().campaign as Campaign;
    expect(campaign).toMatchObject({ recipients: 3, sent: 3, delivered: 3, shown: 3, clicked: 1, closed: 1, conversions: 1 });
    expect(campaign.clickRate).toBeCloseTo(1 / 3);
    const listed = (await owner('GET', '/api/v1/sites/letters/campaigns')).json().campaigns as Campaign[];
    expect(listed.find((entry) => entry.campaignId === campaignId)).toMatchObject({ conversions: 1, clicked: 1 });

    // The site over time: the same figures per UTC day in the overview's stats (the order placed 25 hours
    // ahead is outside the window), and a report lands on the day it was made.
    const series = async () => ((await owner('GET', '/api/v1/sites/letters/stats?days=7')).json() as SiteStats).notifications;
    const totals = (days: NotificationDay[]) =>
      days.reduce(
        (sum, day) => ({
          delivered: sum.delivered + day.delivered,
          shown: sum.shown + day.shown,
          clicked: sum.clicked + day.clicked,
          conversions: sum.conversions + day.conversions,
        }),
        { delivered: 0, shown: 0, clicked: 0, conversions: 0 },
      );
    const week = await series();
    expect(week).toHaveLength(7);
    expect(totals(week)).toEqual({ delivered: 3, shown: 3, clicked: 1, conversions: 1 });
    const { rows } = await harness.db.query<{ date: string }>(
      `UPDATE events SET created_at = now() - interval '2 days' WHERE kind = 'shown' AND subscriber_id = $1
       RETURNING to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date`,
      [clicker],
    );
    const moved = await series();
    expect(moved.find((day) => day.date === rows[0]!.date)!.shown).toBe(1);
    expect(totals(moved)).toEqual({ delivered: 3, shown: 3, clicked: 1, conversions: 1 });
  });
});
