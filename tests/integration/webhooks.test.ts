// Webhooks (issue 30, docs/webhooks.md) through the real provider: endpoints added through the owner API, events
// emitted by the real calls (the sync insert, a campaign, the click report), sent to a local HTTPS receiver,
// signed as Standard Webhooks says (checked with the specification's own library), retried on the provider's clock
// (moved by hand: no sleeps), in order per subscriber, kept across a restart, and refused where they must not go.
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { WebhookAttempt, WebhookEndpoint, WebhookEventType, WebhookPayload } from '../../contract/webhook-events.ts';
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_SECONDS } from '../../server/webhooks/index.ts';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { postSync, SITE_HASH, SITE_ORIGIN } from '../support/server.ts';

let receiver: WebhookReceiver;
let harness: ProviderHarness;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  harness = await startProviderHarness({
    pathPrefix: 'hooks',
    rateLimit: false,
    webhooks: { privateOrigins: [receiver.origin], ca: receiver.ca, pollMs: 0 },
  });
});

afterAll(async () => {
  await harness?.close();
  await receiver?.close();
});

// Each test's endpoints take only that test's events.
afterEach(async () => {
  await harness.db.query('DELETE FROM webhook_endpoints');
});

async function addEndpoint(path: string, events: WebhookEventType[]): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const reply = await harness.owner('POST', '/webhooks', { url: `${receiver.origin}${path}`, events });
  expect(reply.statusCode, reply.body).toBe(201);
  return reply.json() as { endpoint: WebhookEndpoint; secret: string };
}

const verify = (secret: string, request: ReceivedWebhook) => new Webhook(secret).verify(request.body, request.headers) as WebhookPayload;
const typesAt = (path: string) => receiver.at(path).map((request) => (JSON.parse(request.body) as WebhookPayload).type);
const attemptsOf = async (endpointId: string): Promise<WebhookAttempt[]> =>
  ((await harness.owner('GET', `/webhooks/${endpointId}/log`)).json() as { attempts: WebhookAttempt[] }).attempts.reverse();

describe('webhooks', () => {
  it('the owner API of webhooks needs the site owner key', async () => {
    const body = { url: `${receiver.origin}/nokey`, events: ['subscriber.created'] };
    for (const key of [null, 'not-the-key']) {
      expect((await harness.owner('GET', '/webhooks', undefined, key)).statusCode).toBe(401);
      expect((await harness.owner('POST', '/webhooks', body, key)).statusCode).toBe(401);
      expect((await harness.owner('POST', '/webhooks/1/rotate-secret', {}, key)).statusCode).toBe(401);
    }
    const listed = await harness.owner('GET', '/webhooks');
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual({ status: 'success', endpoints: [] });
  });

  it('signs each event as Standard Webhooks says: subscriber.created from the sync insert verifies', async () => {
    const { endpoint, secret } = await addEndpoint('/signed', ['subscriber.created']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // the secret is shown once: no other reply carries it
    expect(JSON.stringify((await harness.owner('GET', '/webhooks')).json())).not.toContain(secret.slice(6));
    const { id } = await harness.subscribe();
    expect(await harness.webhooks.runDue()).toBe(1);
    const [request] = receiver.at('/signed');
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(request!.headers['content-type']).toBe('application/json');
    const payload = verify(secret, request!);
    expect(payload).toMatchObject({ type: 'subscriber.created', data: { subscriberId: id, status: 'subscribed' } });
    expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
    // a tampered body or another secret does not verify
    expect(() => verify(secret, { ...request!, body: request!.body.replace(id, 'someone-else') })).toThrow();
    expect(() => verify('whsec_' + Buffer.alloc(32, 1).toString('base64'), request!)).toThrow();
    const [attempt] = await attemptsOf(endpoint.endpointId);
    expect(attempt).toMatchObject({ outcome: 'delivered', statusCode: 200, response: 'ok', type: 'subscriber.created' });
    expect(attempt!.messageId).toBe(request!.headers['webhook-id']);
  });

  it('a sync update sends subscriber.updated with the subscriber as written, only to the endpoints that take it', async () => {
    await addEndpoint('/updated', ['subscriber.updated']);
    await addEndpoint('/created', ['subscriber.created']);
    const { id, secret, endpoint } = await harness.subscribe({ fields: { userLanguage: 'en-US', browserType: 'chrome' } });
    // the browser's update (a new subscription id, another language) and a repeated insert of the same subscription:
    // both find the subscriber and rewrite it
    const sync = async (fields: Record<string, string>) => {
      const reply = await postSync(harness.app, {
        hash: SITE_HASH,
        subscription: JSON.stringify({ endpoint, keys: { p256dh: harness.keys.p256dh, auth: harness.keys.auth } }),
        ...fields,
      });
      expect(reply.json(), reply.body).toMatchObject({ status: 'success', subscriberId: id });
    };
    await sync({ action: 'update', subscriberId: id, subscriberSecret: secret, subscriptionId: 'renewed-1', userLanguage: 'fr-FR' });
    await sync({ action: 'insert', subscriberId: id, subscriberSecret: secret, subscriptionId: 'renewed-1', userTimezone: 'Europe/Paris' });
    expect(await harness.webhooks.runDue()).toBe(3);
    expect(typesAt('/created')).toEqual(['subscriber.created']);
    const updated = receiver.at('/updated').map((request) => (JSON.parse(request.body) as { type: string; data: unknown }).data);
    expect(typesAt('/updated')).toEqual(['subscriber.updated', 'subscriber.updated']);
    const created = (JSON.parse(receiver.at('/created')[0]!.body) as { data: { createdAt: string } }).data;
    expect(updated).toEqual([
      {
        subscriberId: id,
        status: 'subscribed',
        browserType: 'chrome',
        language: 'fr-FR',
        timezone: null,
        origin: null,
        createdAt: created.createdAt,
      },
      {
        subscriberId: id,
        status: 'subscribed',
        browserType: 'chrome',
        language: 'fr-FR',
        timezone: 'Europe/Paris',
        origin: null,
        createdAt: created.createdAt,
      },
    ]);
  });

  it('retries after 500s with exponential backoff on the provider clock, then delivers the same message', async () => {
    const { endpoint, secret } = await addEndpoint('/flaky', ['subscriber.created']);
    receiver.answer('/flaky', [500, 500]);
    await harness.subscribe();
    expect(await harness.webhooks.runDue()).toBe(1);
    expect(await harness.webhooks.runDue()).toBe(0);
    harness.clock.advance(WEBHOOK_RETRY_DELAYS_SECONDS[0]! * 1000);
    expect(await harness.webhooks.runDue()).toBe(1);
    harness.clock.advance(WEBHOOK_RETRY_DELAYS_SECONDS[1]! * 1000 - 5000);
    expect(await harness.webhooks.runDue()).toBe(0);
    harness.clock.advance(5000);
    expect(await harness.webhooks.runDue()).toBe(1);
    expect(WEBHOOK_RETRY_DELAYS_SECONDS.slice(0, 2)).toEqual([30, 90]);
    const requests = receiver.at('/flaky');
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    for (const request of requests) verify(secret, request);
    const attempts = await attemptsOf(endpoint.endpointId);
    expect(attempts.map((attempt) => [attempt.outcome, attempt.statusCode])).toEqual([
      ['retrying', 500],
      ['retrying', 500],
      ['delivered', 200],
    ]);
    // the answer's body is kept, at most 256 bytes of it
    expect(attempts[0]!.response).toMatch(/^receiver says 500 x+$/);
    expect(Buffer.byteLength(attempts[0]!.response)).toBe(256);
  });

  it("delivers one subscriber's events in order: a retried event holds back the next, not other subscribers'", async () => {
    await addEndpoint('/ordered', ['subscriber.created', 'subscriber.unsubscribed']);
    receiver.answer('/ordered', [503]);
    const first = await harness.subscribe();
    const unsubscribe = await postSync(harness.app, {
      hash: SITE_HASH,
      action: 'unsubscribe-ui',
      subscriberId: first.id,
      subscriberSecret: first.secret,
    });
    expect(unsubscribe.json().status).toBe('success');
    const second = await harness.subscribe();
    await harness.webhooks.runDue();
    // the first subscriber's created failed: its unsubscribed waits; the second subscriber's event went
    const subscriberOf = (request: ReceivedWebhook) => (JSON.parse(request.body) as { data: { subscriberId: string } }).data.subscriberId;
    expect(
      receiver.at('/ordered').map((request) => [subscriberOf(request), typesAt('/ordered')[receiver.at('/ordered').indexOf(request)]]),
    ).toEqual([
      [first.id, 'subscriber.created'],
      [second.id, 'subscriber.created'],
    ]);
    harness.clock.advance(WEBHOOK_RETRY_DELAYS_SECONDS[0]! * 1000);
    await harness.webhooks.runDue();
    expect(
      receiver
        .at('/ordered')
        .filter((request) => subscriberOf(request) === first.id)
        .map((r) => JSON.parse(r.body).type),
    ).toEqual(['subscriber.created', 'subscriber.created', 'subscriber.unsubscribed']);
    // subscriber.created is written by the sync's own statement (pushkit_sync_batch, migration 51), .unsubscribed by
    // subscriberEvent: the same subscriber, described with the same fields
    const [created, , unsubscribed] = receiver
      .at('/ordered')
      .filter((request) => subscriberOf(request) === first.id)
      .map((request) => (JSON.parse(request.body) as { data: Record<string, unknown> }).data);
    expect(created).toEqual({ ...unsubscribed, status: 'subscribed' });
  });

  it('disables the endpoint after the retry window, says why, and sends again once enabled or replayed', async () => {
    const { endpoint } = await addEndpoint('/down', ['subscriber.created']);
    receiver.answer(
      '/down',
      Array.from({ length: WEBHOOK_MAX_ATTEMPTS }, () => 500),
    );
    await harness.subscribe();
    await harness.webhooks.runDue();
    for (const delay of WEBHOOK_RETRY_DELAYS_SECONDS) {
      harness.clock.advance(delay * 1000);
      expect(await harness.webhooks.runDue()).toBe(1);
    }
    const total = WEBHOOK_RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0);
    expect(total / 3600).toBeGreaterThan(20);
    expect(total / 3600).toBeLessThan(30);
    expect(receiver.at('/down')).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    const shown = (await harness.owner('GET', `/webhooks/${endpoint.endpointId}`)).json().endpoint as WebhookEndpoint;
    expect(shown.status).toBe('disabled');
    expect(shown.disabledReason).toMatch(/^subscriber\.created event msg_\w+ failed 9 attempts over 27\.3 h; last: receiver says 500/);
    const log = (await harness.owner('GET', `/webhooks/${endpoint.endpointId}/log`)).json() as {
      attempts: WebhookAttempt[];
      messages: { messageId: string; status: string }[];
    };
    expect(log.attempts[0]).toMatchObject({ outcome: 'failed', statusCode: 500 });
    expect(log.messages[0]).toMatchObject({ status: 'failed' });

    // a disabled endpoint gets no new events
    await harness.subscribe();
    harness.clock.advance(3_600_000);
    expect(await harness.webhooks.runDue()).toBe(0);
    // enabled again, the event that came meanwhile goes; the failed one goes again when replayed
    const enabled = await harness.owner('PATCH', `/webhooks/${endpoint.endpointId}`, { enabled: true });
    expect(enabled.json().endpoint).toMatchObject({ status: 'enabled', disabledReason: null });
    const replay = await harness.owner('POST', `/webhooks/${endpoint.endpointId}/messages/${log.messages[0]!.messageId}/replay`);
    expect(replay.statusCode, replay.body).toBe(200);
    expect(await harness.webhooks.runDue()).toBe(1);
    expect(receiver.at('/down').at(-1)!.headers['webhook-id']).toBe(log.messages[0]!.messageId);
    const unknown = await harness.owner('POST', `/webhooks/${endpoint.endpointId}/messages/msg_nothere/replay`);
    expect(unknown.statusCode).toBe(404);
  });

  it('signs with the old and the new secret during a rotation overlap, then with the new one only', async () => {
    const { endpoint, secret: old } = await addEndpoint('/rotate', ['subscriber.created']);
    const rotated = await harness.owner('POST', `/webhooks/${endpoint.endpointId}/rotate-secret`, { overlapHours: 2 });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { secret: fresh, endpoint: after } = rotated.json() as { secret: string; endpoint: WebhookEndpoint };
    expect(fresh).not.toBe(old);
    expect(after.previousSecretExpiresAt).not.toBeNull();
    await harness.subscribe();
    await harness.webhooks.runDue();
    const during = receiver.at('/rotate')[0]!;
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    verify(fresh, during);
    verify(old, during);

    harness.clock.advance(2 * 3_600_000 + 1000);
    await harness.subscribe();
    await harness.webhooks.runDue();
    const later = receiver.at('/rotate')[1]!;
    expect(later.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    verify(fresh, later);
    expect(() => verify(old, later)).toThrow();
  });

  it('keeps queued events across a restart of the provider', async () => {
    await addEndpoint('/restart', ['subscriber.created']);
    const { id } = await harness.subscribe();
    // claimed by a process that died before sending it
    await harness.db.query(`UPDATE webhook_messages SET claimed_at = now(), attempts = 1 WHERE status = 'pending'`);
    await harness.stop();
    await harness.start();
    expect(await harness.webhooks.runDue()).toBe(1);
    expect((JSON.parse(receiver.at('/restart')[0]!.body) as { data: { subscriberId: string } }).data.subscriberId).toBe(id);
  });

  it('emits notification.delivered and .failed for a campaign, campaign.completed, and notification.clicked from the report', async () => {
    await addEndpoint('/campaign', ['notification.delivered', 'notification.failed', 'campaign.completed', 'notification.clicked']);
    const good = await harness.subscribe();
    const bad = await harness.subscribe();
    harness.service.answer(bad.path, { status: 400 });
    const created = await harness.owner('POST', '/campaigns', { title: 'Nibs', body: 'New nibs', segment: undefined });
    expect(created.statusCode, created.body).toBe(201);
    await harness.campaigns.idle();
    await harness.webhooks.runDue();
    const payloads = receiver.at('/campaign').map((request) => JSON.parse(request.body) as WebhookPayload);
    const { campaignId } = created.json() as { campaignId: string };
    expect(payloads).toContainEqual(
      expect.objectContaining({ type: 'notification.delivered', data: { campaignId, subscriberId: good.id, automation: null } }),
    );
    expect(payloads).toContainEqual(
      expect.objectContaining({
        type: 'notification.failed',
        data: expect.objectContaining({ campaignId, subscriberId: bad.id, reason: expect.stringContaining('400') }),
      }),
    );
    const completed = payloads.filter((payload) => payload.type === 'campaign.completed');
    expect(completed).toHaveLength(1);
    const delivered = payloads.filter((payload) => payload.type === 'notification.delivered').length;
    expect(completed[0]!.data).toMatchObject({ campaignId, recipients: delivered + 1, delivered, failed: 1 });

    const click = harness.messages(good.path)[0]!.notification.data!.click!;
    for (let repeat = 0; repeat < 2; repeat += 1) {
      const report = await harness.app.inject({
        method: 'POST',
        url: '/notificationEvent',
        headers: { 'content-type': 'text/plain', origin: SITE_ORIGIN },
        payload: JSON.stringify({ hash: SITE_HASH, click, event: 'clicked' }),
      });
      expect(report.statusCode, report.body).toBe(200);
    }
    await harness.webhooks.runDue();
    const clicks = receiver.at('/campaign').filter((request) => JSON.parse(request.body).type === 'notification.clicked');
    expect(clicks.map((request) => JSON.parse(request.body).data)).toEqual([{ campaignId, subscriberId: good.id, automation: null }]);
  });

  it('refuses http and private addresses; a stored name that now resolves privately (DNS rebinding) gets nothing', async () => {
    const refused = async (url: string) => {
      const reply = await harness.owner('POST', '/webhooks', { url, events: ['subscriber.created'] });
      expect(reply.statusCode, url).toBe(400);
      return reply.json().message as string;
    };
    expect(await refused(`http://127.0.0.1:${receiver.port}/plain`)).toMatch(/^url: must be https/);
    expect(await refused('http://example.com/hook')).toMatch(/^url: must be https/);
    expect(await refused('https://10.1.2.3/hook')).toMatch(/private address/);
    expect(await refused('https://169.254.169.254/latest/meta-data')).toMatch(/private address/);
    expect(await refused('https://[::ffff:127.0.0.1]/hook')).toMatch(/private address/);
    expect(await refused('https://[64:ff9b::a00:1]/hook')).toMatch(/private address/);
    expect(await refused(`https://localhost:${receiver.port}/hook`)).toMatch(/private address/);
    expect(await refused('https://user:pass@example.com/hook')).toMatch(/user name or password/);
    expect(await refused('ftp://example.com/hook')).toMatch(/https/);

    // An endpoint whose name resolved to a public address when it was added, and to loopback now (this machine's
    // name): the connection's own lookup refuses it (the receiver's certificate names it: nothing else would).
    const rebinding = hostname();
    expect((await lookup(rebinding)).address).toMatch(/^127\./);
    await harness.db.query(`INSERT INTO webhook_endpoints (site_hash, url, events, secret) VALUES ($1, $2, $3, $4)`, [
      harness.site.hash,
      `https://${rebinding}:${receiver.port}/rebound`,
      ['subscriber.created'],
      'whsec_' + Buffer.alloc(32, 7).toString('base64'),
    ]);
    // and one that redirects to a private address: redirects are not followed
    await addEndpoint('/redirect', ['subscriber.created']);
    receiver.answer('/redirect', [307], `https://127.0.0.1:${receiver.port}/rebound`);
    await harness.subscribe();
    await harness.webhooks.runDue();
    expect(receiver.at('/rebound')).toHaveLength(0);
    expect(receiver.at('/redirect')).toHaveLength(1);
    const { rows } = await harness.db.query<{ url: string; response: string; outcome: string }>(
      `SELECT w.url, a.response, a.outcome FROM webhook_attempts a JOIN webhook_endpoints w ON w.id = a.endpoint_id ORDER BY a.id`,
    );
    const rebound = rows.find((row) => row.url.endsWith('/rebound'))!;
    expect(rebound).toMatchObject({ outcome: 'retrying' });
    expect(rebound.response).toContain(`${rebinding} resolves to 127.`);
    expect(rebound.response).toMatch(/a private address/);
    expect(rows.find((row) => row.url.endsWith('/redirect'))).toMatchObject({ outcome: 'retrying' });
  });
});
