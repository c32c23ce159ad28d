// A campaign survives `kill -9` of the provider sending it: a real `push-kit serve` process sends a campaign
// to 300 subscriptions at the local fake push service and is killed the moment the service has received
// part of them; a new process on the same database resumes it. Every subscriber receives the message, and
// the campaign ends with every delivery counted once.
//
// The guarantee (server/campaigns/database-delivery-store.ts): at least once per subscriber; a second copy only for a
// request the push service had received when the process died, before the answer was recorded (at most the
// sender's concurrency, 100), sent after the restart with the same Topic header. The request whose arrival
// triggered the kill is such a request: it must be sent again, or a subscriber whose push service never
// received it would miss the message.
import type { DeclarativePushMessage } from '../../contract/push-payload.ts';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import type { Campaign } from '../../contract/owner-api.ts';
import { DatabaseDeliveryStore } from '../../server/campaigns/database-delivery-store.ts';
import { CLAIM_LEASE_ENV, claimRenewMs, DEFAULT_CLAIM_LEASE_SECONDS } from '../../server/campaigns/claim-lease.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import {
  createSubscriberKeys,
  decryptPushBody,
  startFakePushService,
  type FakePushService,
  type RecordedPush,
} from '../support/fake-push-service.ts';
import { postgresBinDir, startPostgresCluster } from '../support/postgres-cluster.ts';
import { createThrowawayDatabase, openThrowawayPostgres } from '../support/throwaway-postgres.ts';
import { startProviderHarness } from '../support/provider-harness.ts';
import { seedMigratedDatabase } from '../support/migrated-database.ts';
import { newSubscription, postSync as postSyncInProcess, SITE_HASH, tempDir } from '../support/server.ts';
import {
  closeAgents,
  insertForm,
  postSync,
  startServe,
  stopGracefully,
  writeFaultSite,
  type ServeProcess,
} from '../support/server-faults.ts';
import { timeoutForProcesses } from '../support/process-ready.ts';

const SUBSCRIBERS = 300;
/** The push service has received this many requests of the campaign when the process is killed. */
const KILL_AFTER = 120;
/** The provider's sending concurrency (runCampaign's default): requests in flight at most. */
const CONCURRENCY = 100;
/**
 * The claim leases the processes run with (PUSHKIT_CLAIM_LEASE_SECONDS, 2 to 3600 s). On PostgreSQL the takeover
 * waits for the lease: a short one, not the default 20 s. The embedded database never waits for one: its processes
 * take the longest, an hour, so that "at once" holds however slow the machine is.
 */
const SHORT_LEASE_SECONDS = 3;
const LONG_LEASE_SECONDS = 3600;

let service: FakePushService;
const subscriberKeys = createSubscriberKeys();
const cleanups: (() => Promise<void>)[] = [];
/** Called for each request the push service records, before it answers it. */
const watchers = new Set<(request: RecordedPush) => void>();
beforeAll(async () => {
  service = await startFakePushService();
  const record = service.requests.push.bind(service.requests);
  service.requests.push = (...items: RecordedPush[]) => {
    const length = record(...items);
    for (const item of items) for (const watch of watchers) watch(item);
    return length;
  };
});
afterAll(async () => {
  await closeAgents();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await service.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function ownerCall<T>(serve: ServeProcess, ownerKey: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${serve.url}/api/v1/sites/faults${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const reply = (await response.json()) as T;
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(reply)}`);
  return reply;
}

/** Runs the whole scenario on the database of `env` (none: the project's embedded database). */
async function killMidCampaign(label: string, env: NodeJS.ProcessEnv) {
  const project = await tempDir(`pushkit-faults-campaign-${label}-`);
  cleanups.push(project.remove);
  const vapid = generateVapidKeyPair();
  const siteFile = await writeFaultSite(project.path, vapid.publicKey);
  await writeVapidKeyFile(join(project.path, '.push-kit', 'keys', 'faults.json'), vapid);
  const serveEnv = { NODE_EXTRA_CA_CERTS: service.certPath, PUSHKIT_PUSH_SERVICES: service.origin, ...env };
  // the embedded database starts migrated (migrated-database.ts): the subject is the campaign, not making the database
  if (env.DATABASE_URL === undefined) await seedMigratedDatabase(join(project.path, '.push-kit', 'db'));
  const kill = (serve: ServeProcess) => async () => {
    if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
  };

  const t0 = Date.now();
  const first = await startServe(project.path, siteFile, serveEnv);
  const t1 = Date.now();
  cleanups.push(kill(first));
  const ownerKey = first.ownerKey!;
  const prefix = `/${label}-${randomBytes(4).toString('hex')}`;
  const paths = Array.from({ length: SUBSCRIBERS }, (_, i) => `${prefix}/${i}`);
  // the subscribers come in through the sync endpoint, 30 at a time from 30 visitors' addresses
  for (let batch = 0; batch < SUBSCRIBERS; batch += 30) {
    await Promise.all(
      paths.slice(batch, batch + 30).map(async (path, i) => {
        const form = insertForm({ endpoint: `${service.origin}${path}`, p256dh: subscriberKeys.p256dh, auth: subscriberKeys.auth });
        expect((await postSync(first.url, form, i)).statusCode).toBe(200);
      }),
    );
  }

  const t2 = Date.now();
  // kill -9 from inside the push service, as it records the KILL_AFTER-th request and before it answers it
  const mine = (request: RecordedPush) => request.path.startsWith(`${prefix}/`);
  const ours = () => service.requests.filter(mine);
  let killedAt = 0;
  let triggering: RecordedPush | undefined;
  const watch = (request: RecordedPush) => {
    if (!killedAt && mine(request) && ours().length >= KILL_AFTER) {
      killedAt = Date.now();
      triggering = request;
      first.child.kill('SIGKILL');
    }
  };
  watchers.add(watch);
  let campaignId: string;
  const createdAt = Date.now();
  try {
    const created = await ownerCall<{ campaignId: string; recipients: number }>(first, ownerKey, '/campaigns', {
      title: `Survives ${label}`,
      body: 'Sent once to everyone',
      url: 'https://faults.example/news',
    });
    campaignId = created.campaignId;
    expect(created.recipients).toBe(SUBSCRIBERS);
    expect(await first.exited).toBeNull();
  } finally {
    watchers.delete(watch);
  }
  const exitedAt = Date.now();
  const beforeRestart = ours().length;
  expect(killedAt).toBeGreaterThan(0);
  expect(beforeRestart).toBeGreaterThanOrEqual(KILL_AFTER);
  expect(beforeRestart).toBeLessThan(SUBSCRIBERS);

  const restartedAt = Date.now();
  const second = await startServe(project.path, siteFile, serveEnv);
  cleanups.push(kill(second));
  const secondStartedAt = Date.now();
  expect(second.output()).toContain('resuming 1 unfinished campaign');
  let campaign: Campaign | undefined;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    ({ campaign } = await ownerCall<{ campaign: Campaign }>(second, ownerKey, `/campaigns/${campaignId}`));
    if (campaign.status === 'done') break;
    await sleep(250);
  }
  const doneAfterRestartMs = Date.now() - restartedAt;
  expect(await stopGracefully(second)).toBe(0);

  // what the subscribers' push service received, decrypted as each browser would
  const byPath = new Map<string, RecordedPush[]>();
  for (const request of ours()) {
    const message = JSON.parse(decryptPushBody(request.body, subscriberKeys).toString('utf8')) as DeclarativePushMessage;
    expect(message.notification).toMatchObject({ title: `Survives ${label}`, body: 'Sent once to everyone', data: { campaignId } });
    expect(request.headers.topic).toBe(`campaign-${campaignId}`);
    byPath.set(request.path, [...(byPath.get(request.path) ?? []), request]);
  }
  const missing = paths.filter((path) => !byPath.has(path));
  const duplicated = paths.filter((path) => (byPath.get(path)?.length ?? 0) > 1);
  const firstPushAt = Math.min(...ours().map((request) => request.at));
  const figures = {
    receivedBeforeKill: beforeRestart,
    killedAfterFirstPushMs: killedAt - firstPushAt,
    received: ours().length,
    duplicated: duplicated.length,
    doneAfterRestartMs,
    doneAfterSecondStartedMs: doneAfterRestartMs - (secondStartedAt - restartedAt),
    /** When the request received as the process died was sent again, counted from the campaign's creation. */
    resentAfterCreatedMs: (byPath.get(triggering!.path)?.[1]?.at ?? Infinity) - createdAt,
    /** When the restarted process was ready, from the campaign's creation: below the lease, it could have sent early. */
    secondReadyAfterCreatedMs: secondStartedAt - createdAt,
    firstStartMs: t1 - t0,
    insertMs: t2 - t1,
  };
  console.log(`campaign killed mid-send (${label}): ${JSON.stringify(figures)}`);

  expect(missing).toEqual([]);
  for (const path of duplicated) {
    const copies = byPath.get(path)!;
    // one copy from the killed process, one from the restarted one; never more
    expect(
      copies.map((copy) => (copy.at <= exitedAt ? 'before' : copy.at >= restartedAt ? 'after' : 'between')),
      path,
    ).toEqual(['before', 'after']);
  }
  expect(duplicated.length).toBeLessThanOrEqual(CONCURRENCY);
  // the request received as the process died was never answered: it is sent again
  expect(duplicated).toContain(triggering!.path);
  expect(campaign).toMatchObject({
    status: 'done',
    recipients: SUBSCRIBERS,
    sent: SUBSCRIBERS,
    pending: 0,
    delivered: SUBSCRIBERS,
    failed: 0,
    expired: 0,
  });
  return figures;
}

// The two databases run side by side (separate projects and subscribers), to keep the file within a minute. Each may
// take the deadlines of its starts (a PostgreSQL cluster's, serve, serve again) and the resumed campaign's minute.
const killed = { timeout: timeoutForProcesses(3) + 60_000 };
describe.concurrent('a campaign sent by a process that is killed -9', () => {
  it('on the embedded database: the next process resumes at once, every subscriber gets it, the counts are right', killed, async () => {
    const figures = await killMidCampaign('embedded', { [CLAIM_LEASE_ENV]: String(LONG_LEASE_SECONDS) });
    // the embedded database was the killed process's alone: its claims are dropped when the next one opens
    // it, and their deliveries sent before the claims (all made after the campaign's creation) could lapse
    expect(figures.resentAfterCreatedMs).toBeLessThan(LONG_LEASE_SECONDS * 1000);
  });

  const externalUrl = process.env.PUSHKIT_TEST_DATABASE_URL;
  it.skipIf(!externalUrl && !postgresBinDir())(
    'on PostgreSQL: the next process takes the lapsed claims, every subscriber gets it, the counts are right',
    killed,
    async () => {
      let url: string;
      if (externalUrl) {
        const throwaway = await createThrowawayDatabase(externalUrl, 'pushkit_faults');
        cleanups.push(throwaway.drop);
        url = throwaway.url;
      } else {
        const cluster = (await startPostgresCluster())!;
        cleanups.push(cluster.remove);
        url = cluster.url;
      }
      const figures = await killMidCampaign('postgres', { DATABASE_URL: url, [CLAIM_LEASE_ENV]: String(SHORT_LEASE_SECONDS) });
      // another live process could hold those claims: they are taken only once they lapse, the lease after they were
      // made (after the campaign's creation), though the restarted process is ready before (secondReadyAfterCreatedMs)
      expect(figures.resentAfterCreatedMs).toBeGreaterThanOrEqual(SHORT_LEASE_SECONDS * 1000);
    },
  );

  // each test's own `expect` where it polls: in a concurrent describe the global one may be bound to another test,
  // and expect.poll then throws "must be called inside a test"
  it('a live runner renews its claims: another runner does not take them once the lease has passed, but takes them when not renewed', async ({
    expect,
  }) => {
    const harness = await startProviderHarness({ via: 'createApp', service: false, rateLimit: false });
    cleanups.push(() => harness.close());
    const { app, db, site } = harness;
    for (let i = 0; i < 3; i += 1) {
      expect((await postSyncInProcess(app, { hash: SITE_HASH, action: 'insert', subscription: newSubscription().json })).statusCode).toBe(
        200,
      );
    }
    const { campaignId } = await createCampaign(db, site, { title: 'Lease', body: 'renewed', ttl: 60, urgency: 'normal' });
    // the default lease: a busy machine's renewal comes within a quarter of it
    const lease = DEFAULT_CLAIM_LEASE_SECONDS;
    const lapse = () =>
      db.query(`UPDATE deliveries SET claimed_at = now() - make_interval(secs => $2) WHERE campaign_id = $1`, [campaignId, lease + 1]);
    const live = new DatabaseDeliveryStore(db, site.config, undefined, undefined, lease);
    const other = new DatabaseDeliveryStore(db, site.config, undefined, undefined, lease);
    expect(await live.claimPending(campaignId, 10)).toHaveLength(3);
    // as if the claims were a lease old: the live runner's next renewal makes them fresh again
    await lapse();
    // and until then (a renewal late on a busy machine) the runner does not take its own claims again: it would send
    // each twice
    expect(await live.claimPending(campaignId, 10)).toEqual([]);
    // within the renewal period (and a second), not a fixed wait: the renewal is seen in the database
    const fresh = async () =>
      (
        await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM deliveries WHERE campaign_id = $1 AND claimed_at > now() - make_interval(secs => $2)`,
          [campaignId, lease],
        )
      ).rows[0]!.n;
    await expect.poll(fresh, { timeout: claimRenewMs(lease) + 1000, interval: 50 }).toBe(3);
    expect(await other.claimPending(campaignId, 10)).toEqual([]);
    // a runner that stopped renewing (as a dead one does) loses them once the lease has passed
    live.abandonClaims();
    await lapse();
    const retaken = await other.claimPending(campaignId, 10);
    other.abandonClaims();
    expect(retaken.map((delivery) => delivery.attempts)).toEqual([2, 2, 2]);
  }, 30_000);

  it("a runner's claims go on after its last, then come back for a dead runner's lapsed claims before it", async ({ expect }) => {
    // A claim starts after the last one its store made (the pending index's entries of deliveries already sent are
    // not walked again); what lies before that is taken when nothing after it is left.
    const harness = await startProviderHarness({ via: 'createApp', service: false, rateLimit: false });
    cleanups.push(() => harness.close());
    const { app, db, site } = harness;
    for (let i = 0; i < 9; i += 1) {
      expect((await postSyncInProcess(app, { hash: SITE_HASH, action: 'insert', subscription: newSubscription().json })).statusCode).toBe(
        200,
      );
    }
    const { campaignId } = await createCampaign(db, site, { title: 'Onwards', body: 'and back', ttl: 60, urgency: 'normal' });
    const lease = DEFAULT_CLAIM_LEASE_SECONDS;
    const dead = new DatabaseDeliveryStore(db, site.config, undefined, undefined, lease);
    const live = new DatabaseDeliveryStore(db, site.config, undefined, undefined, lease);
    const ids = (deliveries: { id: string }[]) => deliveries.map((delivery) => delivery.id).sort();
    const lapsed = await dead.claimPending(campaignId, 3);
    dead.abandonClaims();
    const first = await live.claimPending(campaignId, 3);
    await db.query(`UPDATE deliveries SET claimed_at = now() - make_interval(secs => $2) WHERE id = ANY($1::bigint[])`, [
      ids(lapsed),
      lease + 1,
    ]);
    const onwards = await live.claimPending(campaignId, 3);
    const back = await live.claimPending(campaignId, 3);
    expect(await live.claimPending(campaignId, 3)).toEqual([]);
    live.abandonClaims();
    expect(new Set(ids([...first, ...onwards, ...back])).size).toBe(9);
    expect(ids(back)).toEqual(ids(lapsed));
    expect(back.map((delivery) => delivery.attempts)).toEqual([2, 2, 2]);
  }, 60_000);

  it.skipIf(!externalUrl)(
    "on PostgreSQL a claims' renewal never waits for a row a result write holds, so the two cannot deadlock",
    async ({ expect }) => {
      const { db, url, cleanup } = await openThrowawayPostgres(externalUrl!, 'pushkit_faults');
      cleanups.push(cleanup);
      const harness = await startProviderHarness({ via: 'createApp', service: false, rateLimit: false, db });
      cleanups.push(() => harness.close());
      const { app, site } = harness;
      for (let i = 0; i < 2; i += 1) {
        const inserted = await postSyncInProcess(app, { hash: SITE_HASH, action: 'insert', subscription: newSubscription().json });
        expect(inserted.statusCode).toBe(200);
      }
      const { campaignId } = await createCampaign(db, site, { title: 'Renewal', body: 'no deadlock', ttl: 60, urgency: 'normal' });
      const store = new DatabaseDeliveryStore(db, site.config);
      const [first, second] = (await store.claimPending(campaignId, 10)).map((delivery) => Number(delivery.id)).sort((a, b) => a - b);
      // a result write under way on another connection: it holds the second row, and writes the first next
      const writer = new pg.Client({ connectionString: url });
      await writer.connect();
      try {
        await writer.query('BEGIN');
        await writer.query('UPDATE deliveries SET updated_at = now() WHERE id = $1', [second]);
        let outcome: string | undefined;
        const renewal = store.renewClaims().then(
          () => (outcome = 'renewed'),
          (error: Error) => (outcome = `failed: ${error.message}`),
        );
        // the renewal is done, or it waits for the second row (a renewal that does holds the first: 27878b1)
        const waitingForLock = async () =>
          (
            await db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            )
          ).rows[0]!.n > 0;
        await expect.poll(async () => outcome !== undefined || (await waitingForLock()), { timeout: 5000, interval: 20 }).toBe(true);
        await writer.query('UPDATE deliveries SET updated_at = now() WHERE id = $1', [first]);
        await writer.query('COMMIT');
        await renewal;
        expect(outcome).toBe('renewed');
      } finally {
        await writer.end();
        store.abandonClaims();
      }
    },
    30_000,
  );
});
