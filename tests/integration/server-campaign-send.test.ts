// Campaigns sent from the provider's database: subscribers stored by the real sync endpoint, messages
// received and decrypted by the fake HTTPS push service, results and progress back in the database.
import { describe, expect, it } from 'vitest';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import { campaignProgress, sendCampaign, vapidSubjectOf, type SendCampaignOptions } from '../../server/campaigns/campaign-sender.ts';
import { DatabaseDeliveryStore } from '../../server/campaigns/database-delivery-store.ts';
import { runCampaign } from '../../server/campaigns/campaign-runner.ts';
import { verifyVapidAuthorization } from '../support/fake-push-service.ts';
import { useProviderHarness } from '../support/provider-harness.ts';
import { postSync, SITE_HASH } from '../support/server.ts';

const harness = useProviderHarness({ via: 'createApp', rateLimit: false });

const subscribe = async (path: string) => (await harness.subscribe({ path })).id;
/** Sends the campaign from the harness's database to its push service. */
const send = (campaignId: string, options: Omit<SendCampaignOptions, 'ca' | 'pushServices'> = {}) =>
  sendCampaign(harness.db, harness.site, campaignId, harness.vapid, {
    ca: harness.service.ca,
    pushServices: harness.service.pushServices,
    ...options,
  });

async function newCampaign(title: string): Promise<string> {
  const { campaignId } = await createCampaign(harness.db, harness.site, {
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
    harness.service.answer('/gone/1', { status: 410 });
    const campaignId = await newCampaign('New submissions');

    const counts = await send(campaignId);

    expect(counts).toMatchObject({ delivered: 1, expired: 1, failed: 0 });
    const request = harness.deliveries('/ok/1')[0]!;
    const message = harness.messageOf(request);
    const click = new URL(message.notification.navigate).searchParams.get('pushkit_click');
    expect(message).toEqual({
      web_push: 8030,
      notification: {
        title: 'New submissions',
        body: 'New submissions body',
        navigate: `https://letters.example/new?utm_source=push-kit&utm_medium=push&utm_campaign=${campaignId}&pushkit_click=${click}`,
        tag: `pushkit-campaign-${campaignId}`,
        data: { campaignId, click },
      },
      mutable: true,
    });
    expect(request.headers.ttl).toBe('3600');
    expect(request.headers.urgency).toBe('high');
    expect(request.headers.topic).toBe(`campaign-${campaignId}`);
    expect(verifyVapidAuthorization(request.headers.authorization as string, harness.vapid.publicKey).claims.sub).toBe(
      vapidSubjectOf(harness.site),
    );
    expect(await campaignProgress(harness.db, campaignId)).toEqual({
      recipients: 2,
      pending: 0,
      delivered: 1,
      failed: 0,
      expired: 1,
      capped: 0,
      dropped: 0,
    });
    const statuses = await harness.db.query<{ id: string; status: string }>('SELECT id, status FROM subscribers WHERE id = ANY($1)', [
      [delivered, gone],
    ]);
    expect(Object.fromEntries(statuses.rows.map((row) => [row.id, row.status]))).toEqual({ [delivered]: 'subscribed', [gone]: 'expired' });
    const campaign = await harness.db.query<{ status: string }>('SELECT status FROM campaigns WHERE id = $1', [campaignId]);
    expect(campaign.rows[0]!.status).toBe('done');
  });

  it('an interrupted campaign resumes in another runner without sending anything twice', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    for (let i = 0; i < 60; i += 1) await subscribe(`/resume/${i}`);
    const campaignId = await newCampaign('Resume');
    const abort = new AbortController();
    let seen = 0;
    await send(campaignId, {
      concurrency: 5,
      signal: abort.signal,
      onProgress: (counts) => {
        seen = counts.delivered;
        if (seen >= 20) abort.abort();
      },
    });
    const halfway = await campaignProgress(harness.db, campaignId);
    expect(halfway.pending).toBeGreaterThan(0);
    expect(halfway.delivered).toBeGreaterThanOrEqual(20);

    await send(campaignId, { concurrency: 5 });

    expect(await campaignProgress(harness.db, campaignId)).toMatchObject({ recipients: 60, pending: 0, delivered: 60 });
    for (let i = 0; i < 60; i += 1) expect(harness.service.countFor(`/resume/${i}`), `/resume/${i}`).toBe(1);
  });

  it('two runners on one campaign share the work without a duplicate (claims with SKIP LOCKED)', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    for (let i = 0; i < 40; i += 1) await subscribe(`/shared/${i}`);
    const campaignId = await newCampaign('Shared');
    await Promise.all([send(campaignId, { concurrency: 4 }), send(campaignId, { concurrency: 4 })]);
    for (let i = 0; i < 40; i += 1) expect(harness.service.countFor(`/shared/${i}`)).toBe(1);
  });

  it('expires, without sending, every delivery whose subscriber unsubscribed after the campaign was created', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    const subscribers: { path: string; id: string; secret: string }[] = [];
    for (let i = 0; i < 30; i += 1) {
      const { path, id, secret } = await harness.subscribe({ path: `/left/${i}` });
      subscribers.push({ path, id, secret });
    }
    const campaignId = await newCampaign('Left');
    // Whole claim windows of leavers (the first and last 8) and leavers between senders (every third).
    const leavers = subscribers.filter((_, i) => i < 8 || i >= 22 || i % 3 === 0);
    for (const leaver of leavers) {
      const reply = await postSync(harness.app, {
        hash: SITE_HASH,
        action: 'unsubscribe-ui',
        subscriberId: leaver.id,
        subscriberSecret: leaver.secret,
      });
      expect(reply.statusCode).toBe(200);
    }

    await send(campaignId, { concurrency: 2 });

    expect(await campaignProgress(harness.db, campaignId)).toMatchObject({
      recipients: 30,
      pending: 0,
      delivered: 30 - leavers.length,
      expired: leavers.length,
    });
    for (const subscriber of subscribers) {
      expect(harness.service.countFor(subscriber.path), subscriber.path).toBe(leavers.includes(subscriber) ? 0 : 1);
    }
  });

  it('a claim held by a live runner is not taken, one older than the lease is', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    await subscribe('/lease/1');
    const campaignId = await newCampaign('Lease');
    // two runners of one campaign (two processes on one database)
    const runner = new DatabaseDeliveryStore(harness.db, harness.site.config);
    const other = new DatabaseDeliveryStore(harness.db, harness.site.config);
    expect(await runner.claimPending(campaignId, 10)).toHaveLength(1);
    expect(await other.claimPending(campaignId, 10)).toHaveLength(0);
    // the runner died: its claim is not renewed past the lease
    runner.abandonClaims();
    await harness.db.query(`UPDATE deliveries SET claimed_at = now() - interval '10 minutes' WHERE campaign_id = $1`, [campaignId]);
    const retaken = await other.claimPending(campaignId, 10);
    expect(retaken).toHaveLength(1);
    expect(retaken[0]!.attempts).toBe(2);
    other.abandonClaims();
  });
});

describe("a send's statements", () => {
  it('writes the answers that are in together: one result statement per `concurrency` answers, not two', async () => {
    // A sender that answers at once (the database is all a send waits for): each result statement takes every answer
    // that came in while the last one was written. A write started with the first answer alone before, and the next
    // took the rest, so statements alternated between 1 and `concurrency - 1` answers: twice the commits.
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    await harness.db.query(
      `INSERT INTO subscribers (id, site_hash, uuid, status, endpoint, p256dh, auth)
       SELECT 'batch-' || i, $1, 'uuid-batch-' || i, 'subscribed', 'https://push.example/batch/' || i, 'p256dh', 'auth'
       FROM generate_series(1, 400) AS i`,
      [SITE_HASH],
    );
    const campaignId = await newCampaign('Batched');
    const statements = { results: 0, claims: 0 };
    const db = Object.create(harness.db) as typeof harness.db;
    db.query = ((sql: string, ...rest: unknown[]) => {
      if (sql.includes('WITH marked AS')) statements.results += 1;
      if (sql.includes('SKIP LOCKED')) statements.claims += 1;
      return (harness.db.query as (...args: unknown[]) => unknown)(sql, ...rest);
    }) as typeof db.query;
    const counts = await runCampaign(new DatabaseDeliveryStore(db, harness.site.config), campaignId, {
      vapid: harness.vapid,
      subject: 'mailto:owner@letters.example',
      concurrency: 20,
      send: async () => ({ outcome: 'delivered', statusCode: 201 }),
    });
    expect(counts).toMatchObject({ sent: 400, delivered: 400 });
    expect(await campaignProgress(harness.db, campaignId)).toMatchObject({ recipients: 400, pending: 0, delivered: 400 });
    // 400 answers at concurrency 20: 20 statements when each takes 20 (about 40 before)
    expect(statements.results).toBeLessThanOrEqual(24);
    // and a claim takes four times the concurrency, ahead of need: 5 claims and the empty one that ends the run (11 before)
    expect(statements.claims).toBeLessThanOrEqual(7);
  });
});
