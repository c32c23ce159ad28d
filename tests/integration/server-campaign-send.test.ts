// Campaigns sent from the provider's database: subscribers stored by the real sync endpoint, messages
// received and decrypted by the fake HTTPS push service, results and progress back in the database.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.ts';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import { campaignProgress, sendCampaign, vapidSubjectOf } from '../../server/campaigns/campaign-sender.ts';
import type { Database } from '../../server/db/database.ts';
import { DatabaseDeliveryStore } from '../../server/campaigns/database-delivery-store.ts';
import { closePushConnections } from '../../server/push/send.ts';
import type { HostedSite } from '../../server/sites.ts';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.ts';
import {
  createSubscriberKeys,
  decryptPushBody,
  startFakePushService,
  verifyVapidAuthorization,
  type FakePushService,
} from '../support/fake-push-service.ts';
import { openTempDatabase, postSync, SITE_HASH, testSite } from '../support/server.ts';

let db: Database;
let cleanup: () => Promise<void>;
let app: FastifyInstance;
let site: HostedSite;
let service: FakePushService;
const vapid = generateVapidKeyPair();
const keys = createSubscriberKeys();

beforeAll(async () => {
  ({ db, cleanup } = await openTempDatabase());
  site = testSite();
  service = await startFakePushService();
  app = await createApp({ sites: [site], db, rateLimit: false, pushServices: service.pushServices });
});
afterAll(async () => {
  await closePushConnections();
  await service.close();
  await app.close();
  await cleanup();
});

async function subscribe(path: string): Promise<string> {
  const endpoint = `${service.origin}${path}`;
  const reply = await postSync(app, {
    hash: SITE_HASH,
    action: 'insert',
    subscription: JSON.stringify({ endpoint, expirationTime: null, keys: { p256dh: keys.p256dh, auth: keys.auth } }),
    subscriptionId: path.slice(1).replace(/\//g, '-'),
  });
  return (reply.json() as { subscriberId: string }).subscriberId;
}

async function newCampaign(title: string): Promise<string> {
  const { campaignId } = await createCampaign(db, site, {
    title,
    body: `${title} body`,
    url: 'https://letters.example/new',
    ttl: 3600,
    urgency: 'high',
  });
  return campaignId;
}

describe('sending a campaign from the database', () => {
  it('delivers an encrypted, VAPID-signed message to each subscriber and counts the results', async () => {
    const delivered = await subscribe('/ok/1');
    const gone = await subscribe('/gone/1');
    service.answer('/gone/1', { status: 410 });
    const campaignId = await newCampaign('New submissions');

    const counts = await sendCampaign(db, site, campaignId, vapid, { ca: service.ca, pushServices: service.pushServices });

    expect(counts).toMatchObject({ delivered: 1, expired: 1, failed: 0 });
    const request = service.requests.find((entry) => entry.path === '/ok/1')!;
    const message = JSON.parse(decryptPushBody(request.body, keys).toString('utf8'));
    const click = new URL(message.notification.navigate).searchParams.get('pushkit_click');
    expect(message).toEqual({
      web_push: 8030,
      notification: {
        title: 'New submissions',
        body: 'New submissions body',
        navigate: `https://letters.example/new?pushkit_click=${click}`,
        tag: `pushkit-campaign-${campaignId}`,
        data: { campaignId, click },
      },
      mutable: true,
    });
    expect(request.headers.ttl).toBe('3600');
    expect(request.headers.urgency).toBe('high');
    expect(request.headers.topic).toBe(`campaign-${campaignId}`);
    expect(verifyVapidAuthorization(request.headers.authorization as string, vapid.publicKey).claims.sub).toBe(vapidSubjectOf(site));
    expect(await campaignProgress(db, campaignId)).toEqual({
      recipients: 2,
      pending: 0,
      delivered: 1,
      failed: 0,
      expired: 1,
      capped: 0,
      dropped: 0,
    });
    const statuses = await db.query<{ id: string; status: string }>('SELECT id, status FROM subscribers WHERE id = ANY($1)', [
      [delivered, gone],
    ]);
    expect(Object.fromEntries(statuses.rows.map((row) => [row.id, row.status]))).toEqual({ [delivered]: 'subscribed', [gone]: 'expired' });
    const campaign = await db.query<{ status: string }>('SELECT status FROM campaigns WHERE id = $1', [campaignId]);
    expect(campaign.rows[0]!.status).toBe('done');
  });

  it('an interrupted campaign resumes in another runner without sending anything twice', async () => {
    await db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    for (let i = 0; i < 60; i += 1) await subscribe(`/resume/${i}`);
    const campaignId = await newCampaign('Resume');
    const abort = new AbortController();
    let seen = 0;
    await sendCampaign(db, site, campaignId, vapid, {
      ca: service.ca,
      pushServices: service.pushServices,
      concurrency: 5,
      signal: abort.signal,
      onProgress: (counts) => {
        seen = counts.delivered;
        if (seen >= 20) abort.abort();
      },
    });
    const halfway = await campaignProgress(db, campaignId);
    expect(halfway.pending).toBeGreaterThan(0);
    expect(halfway.delivered).toBeGreaterThanOrEqual(20);

    await sendCampaign(db, site, campaignId, vapid, { ca: service.ca, pushServices: service.pushServices, concurrency: 5 });

    expect(await campaignProgress(db, campaignId)).toMatchObject({ recipients: 60, pending: 0, delivered: 60 });
    for (let i = 0; i < 60; i += 1) expect(service.countFor(`/resume/${i}`), `/resume/${i}`).toBe(1);
  });

  it('two runners on one campaign share the work without a duplicate (claims with SKIP LOCKED)', async () => {
    await db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    for (let i = 0; i < 40; i += 1) await subscribe(`/shared/${i}`);
    const campaignId = await newCampaign('Shared');
    await Promise.all([
      sendCampaign(db, site, campaignId, vapid, { ca: service.ca, pushServices: service.pushServices, concurrency: 4 }),
      sendCampaign(db, site, campaignId, vapid, { ca: service.ca, pushServices: service.pushServices, concurrency: 4 }),
    ]);
    for (let i = 0; i < 40; i += 1) expect(service.countFor(`/shared/${i}`)).toBe(1);
  });

  it('expires, without sending, every delivery whose subscriber unsubscribed after the campaign was created', async () => {
    await db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    const subscribers: { path: string; id: string; secret: string }[] = [];
    for (let i = 0; i < 30; i += 1) {
      const path = `/left/${i}`;
      const reply = await postSync(app, {
        hash: SITE_HASH,
        action: 'insert',
        subscription: JSON.stringify({
          endpoint: `${service.origin}${path}`,
          expirationTime: null,
          keys: { p256dh: keys.p256dh, auth: keys.auth },
        }),
        subscriptionId: `left-${i}`,
      });
      const { subscriberId, subscriberSecret } = reply.json() as { subscriberId: string; subscriberSecret: string };
      subscribers.push({ path, id: subscriberId, secret: subscriberSecret });
    }
    const campaignId = await newCampaign('Left');
    // Whole claim windows of leavers (the first and last 8) and leavers between senders (every third).
    const leavers = subscribers.filter((_, i) => i < 8 || i >= 22 || i % 3 === 0);
    for (const leaver of leavers) {
      const reply = await postSync(app, {
        hash: SITE_HASH,
        action: 'unsubscribe-ui',
        subscriberId: leaver.id,
        subscriberSecret: leaver.secret,
      });
      expect(reply.statusCode).toBe(200);
    }

    await sendCampaign(db, site, campaignId, vapid, { ca: service.ca, pushServices: service.pushServices, concurrency: 2 });

    expect(await campaignProgress(db, campaignId)).toMatchObject({
      recipients: 30,
      pending: 0,
      delivered: 30 - leavers.length,
      expired: leavers.length,
    });
    for (const subscriber of subscribers) {
      expect(service.countFor(subscriber.path), subscriber.path).toBe(leavers.includes(subscriber) ? 0 : 1);
    }
  });

  it('a claim held by a live runner is not taken, one older than the lease is', async () => {
    await db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    await subscribe('/lease/1');
    const campaignId = await newCampaign('Lease');
    const store = new DatabaseDeliveryStore(db, site.config);
    expect(await store.claimPending(campaignId, 10)).toHaveLength(1);
    expect(await store.claimPending(campaignId, 10)).toHaveLength(0);
    await db.query(`UPDATE deliveries SET claimed_at = now() - interval '10 minutes' WHERE campaign_id = $1`, [campaignId]);
    const retaken = await store.claimPending(campaignId, 10);
    expect(retaken).toHaveLength(1);
    expect(retaken[0]!.attempts).toBe(2);
  });
});
