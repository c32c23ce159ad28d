// A campaign's figures as the owner API reports them: shown, clicked, closed, click rate, and conversions (a
// shop order of a subscriber who clicked, within the site's conversionWindowHours after the click).
import { describe, expect, it } from 'vitest';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import { sendCampaign } from '../../server/campaigns/campaign-sender.ts';
import type { Campaign, NotificationDay, SiteStats } from '../../contract/owner-api.ts';
import type { CampaignFigures, CampaignPage, CampaignResent } from '../../contract/campaign-report.ts';
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
const order = (orderId: string, subscriberId: string, priced?: { total: number; currency: string }) =>
  owner('POST', '/api/v1/shopify/orders', {
    hash: SITE_HASH,
    orderId,
    subscriberId,
    order: { total: 40, ...priced, items: [{ pId: 1, pName: 'Nib set', pPrice: 40, pQuant: 1 }] },
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

    // Days of the owner's display zone when the dashboard names it: a report at noon UTC is the next day at
    // Kiritimati (UTC+14), and the last day is Kiritimati's today. A zone the provider does not know is refused.
    const noon = new Date(Date.parse(`${rows[0]!.date}T12:00:00Z`));
    await harness.db.query(`UPDATE events SET created_at = $2 WHERE kind = 'shown' AND subscriber_id = $1`, [clicker, noon]);
    const kiritimati = ((await owner('GET', '/api/v1/sites/letters/stats?days=7&zone=Pacific/Kiritimati')).json() as SiteStats)
      .notifications;
    const dateAt = (time: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Kiritimati' }).format(time);
    expect(kiritimati.at(-1)!.date).toBe(dateAt(Date.now()));
    expect(kiritimati.find((day) => day.date === dateAt(noon.getTime()))!.shown).toBe(1);
    expect(dateAt(noon.getTime())).not.toBe(rows[0]!.date);
    expect(totals(kiritimati)).toEqual({ delivered: 3, shown: 3, clicked: 1, conversions: 1 });
    const unknown = await owner('GET', '/api/v1/sites/letters/stats?zone=Mars/Olympus');
    expect([unknown.statusCode, unknown.json().message]).toEqual([400, 'zone: must be an IANA time zone such as Europe/Berlin']);
  });

  it("pages the list by status and words; a campaign's figures by browser and over time, its CSV, and a resend", async () => {
    const page = async (name: string, browserType: string) =>
      (await harness.subscribe({ path: `/analytics/${name}`, fields: { browserType } })).id;
    const fox = await page('page-fox', 'Firefox');
    await page('page-chrome-1', 'Chrome');
    await page('page-chrome-2', 'Chrome');
    // an editor's title a spreadsheet would run as a formula
    const title = '=HYPERLINK("https://evil.example","Quills")';
    const { campaignId } = await createCampaign(harness.db, harness.site, { title, body: 'Quills and inks', ttl: 60, urgency: 'normal' });
    await sendCampaign(harness.db, harness.site, campaignId, harness.vapid, {
      ca: harness.service.ca,
      pushServices: harness.service.pushServices,
    });
    const token = (name: string) => harness.messages(`/analytics/${name}`).at(-1)!.notification.data!.click!;
    for (const name of ['page-fox', 'page-chrome-1']) await report({ click: token(name), event: 'shown' });
    await report({ click: token('page-fox'), event: 'clicked' });
    // the clicker's orders: revenue per currency, never added across currencies
    for (const [id, total, currency] of [
      ['Q-1', 30, 'USD'],
      ['Q-2', 12.5, 'EUR'],
      ['Q-3', 20, 'EUR'],
    ] as const) {
      expect((await order(id, fox, { total, currency })).statusCode).toBe(201);
    }
    const later = await createCampaign(harness.db, harness.site, {
      title: 'Spring inks',
      body: 'Soon',
      ttl: 60,
      urgency: 'normal',
      sendAt: '2099-01-01T09:00:00Z',
    });

    const list = async (query: string) => (await owner('GET', `/campaigns?${query}`)).json() as CampaignPage;
    expect((await list('q=quills%20INKS')).campaigns.map((entry) => entry.campaignId)).toEqual([campaignId]);
    expect((await list('q=%25')).total).toBe(0);
    expect((await list('status=scheduled')).campaigns.map((entry) => entry.campaignId)).toEqual([later.campaignId]);
    expect((await list('status=sent')).total).toBe(2);
    const oldest = await list('order=oldest&limit=1&offset=1');
    expect(oldest).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(oldest.campaigns.map((entry) => entry.campaignId)).toEqual([campaignId]);
    expect((await owner('GET', '/campaigns?status=lost')).json().message).toBe(
      'status: must be one of scheduled, sending, sent, cancelled, failed',
    );

    const figures = (await owner('GET', `/campaigns/${campaignId}/figures`)).json() as CampaignFigures;
    expect(figures.byBrowser.find((row) => row.key === 'Firefox')).toEqual({
      key: 'Firefox',
      recipients: 1,
      sent: 1,
      delivered: 1,
      shown: 1,
      clicked: 1,
    });
    expect(figures.byBrowser.find((row) => row.key === 'Chrome')).toMatchObject({ recipients: 2, delivered: 2, shown: 1, clicked: 0 });
    const sum = (key: 'delivered' | 'shown' | 'clicked') => figures.timeline.reduce((total, point) => total + point[key], 0);
    expect([figures.step, sum('delivered'), sum('shown'), sum('clicked')]).toEqual(['hour', 6, 2, 1]);

    const csv = await owner('GET', `/campaigns/${campaignId}/results.csv`);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.body.split('\r\n');
    expect(lines[0]).toBe(
      'section,name,recipients,sent,delivered,shown,clicked,delivery rate,shown rate,click rate,revenue EUR,revenue USD',
    );
    expect(lines[1]).toBe(`total,"'=HYPERLINK(""https://evil.example"",""Quills"")",6,6,6,2,1,100.0%,33.3%,50.0%,32.5,30`);
    expect(lines).toContain('browser,Firefox,1,1,1,1,1,100.0%,100.0%,100.0%,,');
    expect(lines).toContain('definition,Click rate,,,,,,,,"Clicked ÷ shown: of those shown, the share clicked (each subscriber once).",,');

    // sent again to the five it was delivered to who did not click; a campaign nobody got cannot be
    const resent = await owner('POST', `/campaigns/${campaignId}/resend`);
    expect(resent.statusCode, resent.body).toBe(201);
    const again = resent.json() as CampaignResent;
    expect(again).toMatchObject({ recipients: 5, resendOf: campaignId });
    expect((await owner('GET', `/campaigns/${again.campaignId}`)).json().campaign).toMatchObject({ title, resendOf: campaignId });
    const nobody = await owner('POST', `/campaigns/${later.campaignId}/resend`);
    expect([nobody.statusCode, nobody.json().message]).toEqual([
      409,
      `id: campaign ${later.campaignId} has nobody to send again to: everyone it was delivered to clicked, or is no longer subscribed`,
    ]);
  });
});
