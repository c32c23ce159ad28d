// PostgreSQL crashes and comes back while visitors subscribe: a real `push-kit serve` process on a throwaway
// cluster takes a steady stream of sync inserts from many visitors; PostgreSQL is stopped with `immediate`
// (a crash: no shutdown checkpoint, sessions cut) in the middle and started again. Each visitor behaves like
// the runtime: a 503 or a failed connection is retried later. The provider never answers 500, answers 503
// with Retry-After while the database is away, stays up, and after the restart every subscriber it answered
// 200 for is stored exactly once, with its keys and its one `subscribed` event.
// The same crash in the middle of a campaign: the provider keeps the push services' answers until the database
// is back, so the campaign finishes with every subscriber served exactly once.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import { createSubscriberKeys, decryptPushBody, startFakePushService, type RecordedPush } from '../support/fake-push-service.ts';
import { postgresBinDir, startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';
import { tempDir } from '../support/server.ts';
import {
  FAULT_SITE,
  insertForm,
  randomSubscription,
  startServe,
  stopGracefully,
  STORED_SUBSCRIBERS_SQL,
  storedIntact,
  writeFaultSite,
  type ServeProcess,
  type StoredSubscriber,
  type Subscription,
  type SyncAnswer,
} from '../support/server-faults.ts';
import { timeoutForProcesses } from '../support/process-ready.ts';

const CLIENTS = 20;
const LOAD_MS = 6000;
const CRASH_AT_MS = 2000;
const DOWN_MS = 2000;
const RETRY_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => Promise<void>)[] = [];
const agents = new Map<number, HttpAgent>();
afterAll(async () => {
  for (const agent of agents.values()) agent.destroy();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/**
 * POST /syncSubscriptionAction.php from loopback address 127.0.0.<2 + n>: each visitor has an address of its
 * own, as on the web (the provider limits requests per address). node:http, whose localAddress is honoured.
 */
function postSync(baseUrl: string, form: string, n: number, timeoutMs = 15_000): Promise<SyncAnswer> {
  let agent = agents.get(n);
  if (!agent) {
    agent = new HttpAgent({ keepAlive: true, maxSockets: 4 });
    agents.set(n, agent);
  }
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${baseUrl}/syncSubscriptionAction.php`,
      {
        method: 'POST',
        agent,
        localAddress: `127.0.0.${2 + (n % 250)}`,
        timeout: timeoutMs,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: FAULT_SITE.origin },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('error', reject);
        response.on('end', () => {
          try {
            const retryAfter = response.headers['retry-after'];
            resolve({ statusCode: response.statusCode!, retryAfter, body: JSON.parse(text) as SyncAnswer['body'] });
          } catch (error) {
            reject(error as Error);
          }
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    request.end(form);
  });
}

interface Outcome {
  requests: number;
  statuses: Map<number, number>;
  connectionErrors: number;
  firstConnectionError?: string;
  firstRateLimit?: string;
  /** 503 answers, with the time the request was sent and its Retry-After header. */
  unavailable: { sentAt: number; retryAfter?: string }[];
  /** Any answer that is neither 200, 503 nor 429: each one is a bug. */
  unexpected: string[];
  accepted: Map<string, { id: string; subscription: Subscription; at: number; retried: boolean }>;
  /** Subscribers a client gave up on after its retries (none expected). */
  abandoned: Subscription[];
}

/** CLIENTS visitors inserting new subscribers until `endAt`; each retries its current one until answered 200. */
async function runVisitors(serve: ServeProcess, endAt: number): Promise<Outcome> {
  const outcome: Outcome = {
    requests: 0,
    statuses: new Map(),
    connectionErrors: 0,
    unavailable: [],
    unexpected: [],
    accepted: new Map(),
    abandoned: [],
  };
  const visitor = async (n: number) => {
    for (let k = 0; Date.now() < endAt; k += 1) {
      const subscription = randomSubscription(`v${n}-${k}`);
      const form = insertForm(subscription);
      // the runtime retries on the next page view; a visitor who keeps browsing for 20 s more
      const giveUpAt = endAt + 20_000;
      for (let attempt = 0; ; attempt += 1) {
        const sentAt = Date.now();
        outcome.requests += 1;
        let answer;
        try {
          answer = await postSync(serve.url, form, n, 15_000);
        } catch (error) {
          outcome.firstConnectionError ??= (error as Error).message;
          outcome.connectionErrors += 1;
          answer = undefined;
        }
        if (answer) outcome.statuses.set(answer.statusCode, (outcome.statuses.get(answer.statusCode) ?? 0) + 1);
        if (answer?.statusCode === 200 && answer.body.status === 'success') {
          outcome.accepted.set(subscription.endpoint, {
            id: answer.body.subscriberId!,
            subscription,
            at: Date.now(),
            retried: attempt > 0,
          });
          break;
        }
        if (answer?.statusCode === 429) outcome.firstRateLimit ??= answer.body.message;
        if (answer?.statusCode === 503) outcome.unavailable.push({ sentAt, retryAfter: answer.retryAfter });
        else if (answer && answer.statusCode !== 429) {
          outcome.unexpected.push(`${answer.statusCode} ${JSON.stringify(answer.body)}`);
          break;
        }
        if (Date.now() > giveUpAt) {
          outcome.abandoned.push(subscription);
          break;
        }
        await sleep(RETRY_MS);
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, n) => visitor(n)));
  return outcome;
}

// each test may take its processes' deadlines (the cluster's initdb and start, serve, the cluster's restart) and
// the campaign's 50 s
describe.skipIf(!postgresBinDir())('PostgreSQL restarted', { concurrent: true, timeout: timeoutForProcesses(4) + 50_000 }, () => {
  it('answers 503 with Retry-After while the database is down, never 500, and loses no answered subscriber', async () => {
    const cluster: PostgresCluster = (await startPostgresCluster())!;
    cleanups.push(cluster.remove);
    const project = await tempDir('pushkit-faults-pg-');
    cleanups.push(project.remove);
    const siteFile = await writeFaultSite(project.path);
    const serve = await startServe(project.path, siteFile, { DATABASE_URL: cluster.url });
    cleanups.push(async () => {
      if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
    });
    expect(serve.output()).toContain('(PostgreSQL postgres://pushkit@127.0.0.1');

    const started = Date.now();
    const load = runVisitors(serve, started + LOAD_MS);
    await sleep(CRASH_AT_MS);
    const downFrom = Date.now();
    await cluster.stop('immediate');
    await sleep(DOWN_MS);
    await cluster.start();
    const upAt = Date.now();
    const outcome = await load;

    const summary = {
      requests: outcome.requests,
      statuses: Object.fromEntries(outcome.statuses),
      connectionErrors: outcome.connectionErrors,
      accepted: outcome.accepted.size,
      downMs: upAt - downFrom,
      retriedThenAccepted: [...outcome.accepted.values()].filter(({ retried }) => retried).length,
      firstRateLimit: outcome.firstRateLimit,
      unavailableWhileDown: outcome.unavailable.filter(({ sentAt }) => sentAt >= downFrom && sentAt <= upAt).length,
    };
    console.log(`PostgreSQL restart under load: ${JSON.stringify(summary)}`);

    expect(outcome.unexpected).toEqual([]);
    expect(outcome.statuses.get(500) ?? 0).toBe(0);
    // the provider kept serving: no connection was refused or cut
    expect(outcome.connectionErrors, `${outcome.firstConnectionError}\n${serve.output()}`).toBe(0);
    expect(serve.child.exitCode).toBeNull();
    expect(serve.child.signalCode).toBeNull();
    // while the database was away the visitors were told to come back later
    expect(summary.unavailableWhileDown).toBeGreaterThan(0);
    expect(outcome.abandoned).toEqual([]);
    for (const { retryAfter } of outcome.unavailable) expect(Number(retryAfter)).toBeGreaterThan(0);
    // inserts were accepted before the crash and after the restart, among them ones answered 503 first
    const accepted = [...outcome.accepted.values()];
    expect(accepted.filter(({ at }) => at < downFrom).length).toBeGreaterThan(0);
    expect(accepted.filter(({ at }) => at > upAt).length).toBeGreaterThan(0);
    expect(accepted.filter(({ retried }) => retried).length).toBeGreaterThan(0);

    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    let rows: StoredSubscriber[];
    try {
      ({ rows } = await client.query<StoredSubscriber>(STORED_SUBSCRIBERS_SQL, [FAULT_SITE.hash]));
    } finally {
      await client.end();
    }
    const byEndpoint = new Map<string, StoredSubscriber[]>();
    for (const row of rows) byEndpoint.set(row.endpoint, [...(byEndpoint.get(row.endpoint) ?? []), row]);
    const wrong = [...outcome.accepted.values()].filter(({ id, subscription }) => {
      const found = byEndpoint.get(subscription.endpoint) ?? [];
      return !(found.length === 1 && found[0]!.id === id && storedIntact(found[0], subscription));
    });
    expect(wrong.map(({ subscription }) => subscription.endpoint)).toEqual([]);
    // nothing stored that no visitor was answered for (every visitor retried until answered)
    expect(rows.length).toBe(outcome.accepted.size);

    // and the provider still takes new subscribers, then stops cleanly
    const after = randomSubscription('after');
    expect((await postSync(serve.url, insertForm(after), 0)).statusCode).toBe(200);
    expect(await stopGracefully(serve)).toBe(0);
  });

  it("in the middle of a campaign: the provider keeps the push services' answers until it is back and finishes the campaign, every subscriber served once", async () => {
    const service = await startFakePushService();
    cleanups.push(service.close);
    const cluster = (await startPostgresCluster())!;
    cleanups.push(cluster.remove);
    const project = await tempDir('pushkit-faults-pg-campaign-');
    cleanups.push(project.remove);
    const vapid = generateVapidKeyPair();
    const keys = createSubscriberKeys();
    const siteFile = await writeFaultSite(project.path, vapid.publicKey);
    await writeVapidKeyFile(join(project.path, '.push-kit', 'keys', 'faults.json'), vapid);
    const serve = await startServe(project.path, siteFile, {
      DATABASE_URL: cluster.url,
      NODE_EXTRA_CA_CERTS: service.certPath,
      PUSHKIT_PUSH_SERVICES: service.origin,
    });
    cleanups.push(async () => {
      if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
    });
    const total = 200;
    const paths = Array.from({ length: total }, (_, i) => `/pg-outage/${i}`);
    for (let batch = 0; batch < total; batch += 10) {
      await Promise.all(
        paths.slice(batch, batch + 10).map(async (path, i) => {
          const form = insertForm({ endpoint: `${service.origin}${path}`, p256dh: keys.p256dh, auth: keys.auth });
          expect((await postSync(serve.url, form, 100 + i)).statusCode).toBe(200);
        }),
      );
    }
    // PostgreSQL crashes once the push service has received 60 of the campaign's messages
    let crash: Promise<void> | undefined;
    let crashedAt = 0;
    let backAt = 0;
    const record = service.requests.push.bind(service.requests);
    service.requests.push = (...items: RecordedPush[]) => {
      const length = record(...items);
      if (!crash && length >= 60) {
        crash = (async () => {
          crashedAt = Date.now();
          await cluster.stop('immediate');
          await sleep(DOWN_MS);
          await cluster.start();
          backAt = Date.now();
        })();
      }
      return length;
    };
    const owner = { authorization: `Bearer ${serve.ownerKey}`, 'content-type': 'application/json' };
    const created = (await (
      await fetch(`${serve.url}/api/v1/sites/faults/campaigns`, {
        method: 'POST',
        headers: owner,
        body: JSON.stringify({ title: 'Outage', body: 'still sent' }),
      })
    ).json()) as { campaignId: string; recipients: number };
    expect(created.recipients).toBe(total);
    const deadline = Date.now() + 50_000;
    while (!crash && Date.now() < deadline) await sleep(50);
    await crash;
    let campaign: Record<string, unknown> = {};
    while (Date.now() < deadline) {
      const response = await fetch(`${serve.url}/api/v1/sites/faults/campaigns/${created.campaignId}`, { headers: owner });
      if (response.status === 200) campaign = ((await response.json()) as { campaign: Record<string, unknown> }).campaign;
      else expect(response.status).toBe(503);
      if (campaign.status === 'done') break;
      await sleep(250);
    }
    const counts = new Map<string, number>();
    for (const request of service.requests) {
      expect(JSON.parse(decryptPushBody(request.body, keys).toString('utf8'))).toMatchObject({
        notification: { title: 'Outage', data: { campaignId: created.campaignId } },
      });
      counts.set(request.path, (counts.get(request.path) ?? 0) + 1);
    }
    const duplicated = paths.filter((path) => counts.get(path)! > 1);
    const figures = {
      received: service.requests.length,
      beforeCrash: service.requests.filter((request) => request.at <= crashedAt).length,
      afterBack: service.requests.filter((request) => request.at > backAt).length,
      duplicated: duplicated.length,
      paused: /campaign \d+ of faults paused: database unavailable/.test(serve.output()),
    };
    console.log(`PostgreSQL restart mid-campaign: ${JSON.stringify(figures)}`);
    // the crash came in the middle of the sending
    expect(figures.beforeCrash).toBeGreaterThanOrEqual(60);
    expect(figures.afterBack).toBeGreaterThan(0);
    // the provider kept the push services' answers until the database was back: no message sent twice
    expect(paths.filter((path) => counts.get(path) !== 1)).toEqual([]);
    expect(campaign).toMatchObject({ status: 'done', recipients: total, sent: total, delivered: total, pending: 0, failed: 0, expired: 0 });
    expect(serve.child.exitCode).toBeNull();
    expect(await stopGracefully(serve)).toBe(0);
  });
});
