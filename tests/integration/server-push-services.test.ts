// Issue 17, item 2 (SSRF): the provider accepts subscriptions only on allowed push services and posts only
// to them, and never to a loopback, private or link-local address unless its origin is listed explicitly.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendCampaign } from '../../server/campaigns/campaign-sender.ts';
import { PushServiceAllowlist } from '../../server/push/push-services.ts';
import { closePushConnections, sendPush } from '../../server/push/send.ts';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import type { Database } from '../../server/db/database.ts';
import { startProvider } from '../../server/start-provider.ts';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.ts';
import { createSubscriberKeys, startFakePushService, type FakePushService } from '../support/fake-push-service.ts';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { insertSubscriber, postSync, SITE_HASH, tempDir, testSite } from '../support/server.ts';

const ADMIN_ENDPOINT = 'https://127.0.0.1:18443/internal/admin/reset?confirm=yes';
const site = testSite();
const vapid = generateVapidKeyPair();
const keys = createSubscriberKeys();
let harness: ProviderHarness;
let db: Database;
let app: FastifyInstance;
let service: FakePushService;

beforeAll(async () => {
  delete process.env.PUSHKIT_PUSH_SERVICES;
  service = await startFakePushService();
  // the default list: the browsers' push services only
  harness = await startProviderHarness({ via: 'createApp', service: false, sites: [site], rateLimit: false });
  ({ app, db } = harness);
});
afterAll(async () => {
  await closePushConnections();
  await service.close();
  await harness?.close();
});

const subscriptionJson = (endpoint: string) =>
  JSON.stringify({ endpoint, expirationTime: null, keys: { p256dh: keys.p256dh, auth: keys.auth } });

describe('a subscription endpoint that is not on a push service', () => {
  it('insert is refused with E_PUSH_SERVICE_FORBIDDEN and nothing is stored', async () => {
    const reply = await postSync(app, { hash: SITE_HASH, action: 'insert', subscription: subscriptionJson(ADMIN_ENDPOINT) });
    expect(reply.statusCode).toBe(400);
    expect(reply.json()).toMatchObject({ status: 'failure', code: 'E_PUSH_SERVICE_FORBIDDEN' });
    expect(reply.json().message).toMatch(/^subscription: /);
    const { rows } = await db.query('SELECT 1 FROM subscribers WHERE endpoint = $1', [ADMIN_ENDPOINT]);
    expect(rows).toHaveLength(0);
  });

  it('subscriptionEndPoint is checked the same way', async () => {
    const reply = await postSync(app, { hash: SITE_HASH, action: 'insert', subscriptionEndPoint: 'https://attacker.example/push/1' });
    expect(reply.statusCode).toBe(400);
    expect(reply.json()).toMatchObject({ code: 'E_PUSH_SERVICE_FORBIDDEN' });
    expect(reply.json().message).toMatch(/^subscriptionEndPoint: /);
  });

  it('update cannot move a subscriber to such an endpoint: the stored one stays', async () => {
    const { id, subscription } = await insertSubscriber(app);
    const reply = await postSync(app, {
      hash: SITE_HASH,
      action: 'update',
      subscriberId: id,
      subscription: subscriptionJson('https://attacker.example/push/2'),
    });
    expect(reply.statusCode).toBe(400);
    expect(reply.json()).toMatchObject({ code: 'E_PUSH_SERVICE_FORBIDDEN' });
    const { rows } = await db.query<{ endpoint: string }>('SELECT endpoint FROM subscribers WHERE id = $1', [id]);
    expect(rows[0]?.endpoint).toBe(subscription.endpoint);
  });

  it('a real browser subscription (FCM) is still accepted', async () => {
    const reply = await postSync(app, {
      hash: SITE_HASH,
      action: 'insert',
      subscription: subscriptionJson('https://fcm.googleapis.com/fcm/send/x1'),
    });
    expect(reply.statusCode).toBe(200);
  });
});

describe('sending', () => {
  it('a campaign never posts to an endpoint stored before the list existed: its delivery fails', async () => {
    const endpoint = `${service.origin}/internal/admin/reset`;
    await db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    await db.query(
      `INSERT INTO subscribers (id, site_hash, status, endpoint, p256dh, auth) VALUES ('legacy-1', $1, 'subscribed', $2, $3, $4)`,
      [SITE_HASH, endpoint, keys.p256dh, keys.auth],
    );
    const { campaignId } = await createCampaign(db, site, { title: 'T', body: 'B', ttl: 60, urgency: 'normal' });
    const counts = await sendCampaign(db, site, campaignId, vapid, { ca: service.ca });
    expect(counts).toMatchObject({ delivered: 0, failed: 1 });
    expect(service.countFor('/internal/admin/reset')).toBe(0);
  });

  it('an allowed origin whose address is private is refused unless listed explicitly (an address in the URL)', async () => {
    const listedNotPrivate = PushServiceAllowlist.fromSetting([service.origin], { privateAddresses: false });
    const result = await sendPush({ endpoint: `${service.origin}/private/literal`, keys }, 'x', {
      vapid,
      subject: 'mailto:a@example.com',
      ca: service.ca,
      pushServices: listedNotPrivate,
    });
    expect(result).toMatchObject({ outcome: 'failed', statusCode: 0 });
    expect(service.countFor('/private/literal')).toBe(0);
  });

  it('the address check runs on the address connected to (a host name resolving to loopback)', async () => {
    const byName = service.origin.replace('127.0.0.1', 'localhost');
    const options = { vapid, subject: 'mailto:a@example.com', ca: service.ca };
    const refused = await sendPush({ endpoint: `${byName}/private/name`, keys }, 'x', {
      ...options,
      pushServices: PushServiceAllowlist.fromSetting([byName], { privateAddresses: false }),
    });
    expect(refused).toMatchObject({ outcome: 'failed', statusCode: 0 });
    expect(service.countFor('/private/name')).toBe(0);
    const listed = await sendPush({ endpoint: `${byName}/private/name`, keys }, 'x', {
      ...options,
      pushServices: PushServiceAllowlist.fromSetting([byName]),
    });
    expect(listed).toMatchObject({ outcome: 'delivered' });
    expect(service.countFor('/private/name')).toBe(1);
  });
});

describe('the setting', () => {
  it('startProvider refuses an entry that is not an https origin', async () => {
    const state = await tempDir('pushkit-services-');
    await expect(startProvider({ sites: [site], stateDir: state.path, pushServices: 'http://127.0.0.1:1' })).rejects.toMatchObject({
      code: 'E_PUSH_SERVICES_SETTING',
    });
    await state.remove();
  });

  it('startProvider with the option accepts subscriptions on the listed origin', async () => {
    const state = await tempDir('pushkit-services-');
    const provider = await startProvider({ sites: [site], stateDir: state.path, pushServices: [service.origin] });
    try {
      const reply = await postSync(provider.app, {
        hash: SITE_HASH,
        action: 'insert',
        subscription: subscriptionJson(`${service.origin}/p/1`),
      });
      expect(reply.statusCode).toBe(200);
      const refused = await postSync(provider.app, {
        hash: SITE_HASH,
        action: 'insert',
        subscription: subscriptionJson('https://fcm.googleapis.com/fcm/send/x2'),
      });
      expect(refused.json()).toMatchObject({ code: 'E_PUSH_SERVICE_FORBIDDEN' });
    } finally {
      await provider.close();
      await state.remove();
    }
  });
});
