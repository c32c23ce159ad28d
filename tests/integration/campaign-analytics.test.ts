// A campaign's figures as the owner API reports them: shown, clicked, closed, click rate, and conversions (a
// shop order of a subscriber who clicked, within the site's conversionWindowHours after the click).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.ts';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import { sendCampaign } from '../../server/campaigns/campaign-sender.ts';
import { closePushConnections } from '../../server/push/send.ts';
import type { Database } from '../../server/db/database.ts';
import { ensureOwnerKey } from '../../server/http/owner-keys.ts';
import type { HostedSite } from '../../server/sites.ts';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.ts';
import type { DeclarativePushMessage } from '../../contract/push-payload.ts';
import type { Campaign, NotificationDay, SiteStats } from '../../contract/owner-api.ts';
import { createSubscriberKeys, decryptPushBody, startFakePushService, type FakePushService } from '../support/fake-push-service.ts';
import { openTempDatabase, postSync, SITE_HASH, SITE_ORIGIN, testSite } from '../support/server.ts';

let db: Database;
let cleanup: () => Promise<void>;
let app: FastifyInstance;
let site: HostedSite;
let service: FakePushService;
let ownerKey: string;
const vapid = generateVapidKeyPair();
const keys = createSubscriberKeys();

beforeAll(async () => {
  ({ db, cleanup } = await openTempDatabase());
  const plain = testSite();
  site = { ...plain, config: { ...plain.config, conversionWindowHours: 24 } };
  service = await startFakePushService();
  app = await createApp({ sites: [site], db, rateLimit: false, pushServices: service.pushServices });
  ownerKey = (await ensureOwnerKey(db, site))!;
});
afterAll(async () => {
  await closePushConnections();
  await service.close();
  await app.close();
  await cleanup();
});

async function subscribe(name: string): Promise<string> {
  const reply = await postSync(app, {
    hash: SITE_HASH,
    action: 'insert',
    subscription: JSON.stringify({
      endpoint: `${service.origin}/analytics/${name}`,
      expirationTime: null,
      keys: { p256dh: keys.p256dh, auth: keys.auth },
    }),
    subscriptionId: `analytics-${name}`,
  });
  return (reply.json() as { subscriberId: string }).subscriberId;
}

const owner = (method: 'GET' | 'POST', url: string, payload?: object) =>
  app.inject({ method, url, headers: { authorization: `Bearer ${ownerKey}` }, ...(payload ? { payload } : {}) });
const report = (body: object) =>
  app.inject({
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
    const { campaignId } = await createCampaign(db, site, {
      title: 'Nibs',
      body: 'New nibs',
      url: `${SITE_ORIGIN}/nibs`,
      ttl: 60,
      urgency: 'normal',
    });
    await sendCampaign(db, site, campaignId, vapid, { ca: service.ca, pushServices: service.pushServices });
    const tokenOf = (name: string) => {
      const request = service.requests.find((entry) => entry.path === `/analytics/${name}`)!;
      const message = JSON.parse(decryptPushBody(request.body, keys).toString('utf8')) as DeclarativePushMessage;
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
    await db.query(`UPDATE shop_orders SET created_at = now() + interval '25 hours' WHERE order_id = 'A-2'`);
    // an order placed before the click is not the campaign's doing
    expect((await order('A-0', clicker)).statusCode).toBe(201);
    await db.query(`UPDATE shop_orders SET created_at = now() - interval '1 hour' WHERE order_id = 'A-0'`);

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
    const { rows } = await db.query<{ date: string }>(
      `UPDATE events SET created_at = now() - interval '2 days' WHERE kind = 'shown' AND subscriber_id = $1
       RETURNING to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date`,
      [clicker],
    );
    const moved = await series();
    expect(moved.find((day) => day.date === rows[0]!.date)!.shown).toBe(1);
    expect(totals(moved)).toEqual({ delivered: 3, shown: 3, clicked: 1, conversions: 1 });
  });
});
