// PostgreSQL crashes and comes back while visitors subscribe: a real `push-kit serve` process on a throwaway
// cluster takes a steady stream of sync inserts from many visitors; PostgreSQL is stopped with `immediate`
// (a crash: no shutdown checkpoint, sessions cut) in the middle and started again. Each visitor behaves like
// the runtime: a 503 or a failed connection is retried later. The provider never answers 500, answers 503
// with Retry-After while the database is away, stays up, and after the restart every subscriber it answered
// 200 for is stored exactly once, with its keys and its one `subscribed` event.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresBinDir, startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';
import { tempDir } from './server-support.ts';
import {
  closeAgents,
  FAULT_SITE,
  insertForm,
  postSync,
  startServe,
  stopGracefully,
  writeFaultSite,
  type ServeProcess,
  type Subscription,
} from './server-faults-support.ts';

const CLIENTS = 20;
const LOAD_MS = 6000;
const CRASH_AT_MS = 2000;
const DOWN_MS = 2000;
const RETRY_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await closeAgents();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

function newSubscription(label: string): Subscription {
  return {
    endpoint: `https://fcm.googleapis.com/fcm/send/${label}-${randomBytes(6).toString('hex')}`,
    p256dh: randomBytes(65).toString('base64url'),
    auth: randomBytes(16).toString('base64url'),
  };
}

interface Outcome {
  requests: number;
  statuses: Map<number, number>;
  connectionErrors: number;
  firstConnectionError?: string;
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
      const subscription = newSubscription(`v${n}-${k}`);
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
          outcome.accepted.set(subscription.endpoint, { id: answer.body.subscriberId!, subscription, at: Date.now(), retried: attempt > 0 });
          break;
        }
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

interface Row {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  status: string;
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  events: number;
}

describe.skipIf(!postgresBinDir())('PostgreSQL restarted under a sync load', () => {
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
    let rows: Row[];
    try {
      ({ rows } = await client.query<Row>(
        `SELECT s.id, s.endpoint, s.p256dh, s.auth, s.status, s.subscription,
                (SELECT count(*)::int FROM events e WHERE e.subscriber_id = s.id AND e.kind = 'subscribed') AS events
         FROM subscribers s WHERE s.site_hash = $1`,
        [FAULT_SITE.hash],
      ));
    } finally {
      await client.end();
    }
    const byEndpoint = new Map<string, Row[]>();
    for (const row of rows) byEndpoint.set(row.endpoint, [...(byEndpoint.get(row.endpoint) ?? []), row]);
    const wrong = [...outcome.accepted.values()].filter(({ id, subscription }) => {
      const found = byEndpoint.get(subscription.endpoint) ?? [];
      const row = found[0];
      return !(
        found.length === 1 &&
        row!.id === id &&
        row!.status === 'subscribed' &&
        row!.p256dh === subscription.p256dh &&
        row!.auth === subscription.auth &&
        row!.subscription.keys.p256dh === subscription.p256dh &&
        row!.subscription.keys.auth === subscription.auth &&
        row!.events === 1
      );
    });
    expect(wrong.map(({ subscription }) => subscription.endpoint)).toEqual([]);
    // nothing stored that no visitor was answered for (every visitor retried until answered)
    expect(rows.length).toBe(outcome.accepted.size);

    // and the provider still takes new subscribers, then stops cleanly
    const after = newSubscription('after');
    expect((await postSync(serve.url, insertForm(after), 0)).statusCode).toBe(200);
    expect(await stopGracefully(serve)).toBe(0);
  }, 60_000);
});
