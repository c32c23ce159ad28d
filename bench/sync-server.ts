// Figure 4 of the benchmarks: requests per second and p50 / p99 latency of /syncSubscriptionAction.php under
// a mix of insert, update and http-sync (autocannon on loopback), on the embedded database and on PostgreSQL
// (when PUSHKIT_BENCH_DATABASE_URL is set: a new database on that server each round, dropped after), against the
// floor: a bare fastify route that parses the same form body and answers without touching a database, measured in
// the same run.
//   npx tsx bench/sync-server.ts [--seconds 10] [--connections 50] [--rounds 1] [--no-embedded] [--warm-up 10] [--per-second]
// --rounds N: N rounds, each the floor and then the providers, one after the other; every round's rows and the
// median ratio of each row to its round's floor (a loaded machine moves both sides of a round together).
// --per-second: each row's requests per second, second by second (a slow start, or a slow stretch, shows there).
// --warm-up S (default 10): every target, the bare route as much as the providers, first takes S seconds of the same
// load, not counted, then is measured: a server's steady state, as a provider that has run for a while answers, not
// its first seconds, which V8 runs before its optimizing compiler has compiled the hot paths (bench/README.md,
// method). --warm-up 3: the method of 2026-11-27 04:00-09:00 UTC; --warm-up 0: the method before.
// Each row also gives this process's CPU per request and how busy its event loop was (autocannon, the server and
// the provider share it; a busy share near 100% says the thread, not the database, is what limits the row), and the
// PostgreSQL row the CPU per request of the PostgreSQL server's processes when it runs on this machine (Linux /proc).
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import formbody from '@fastify/formbody';
import pg from 'pg';
import { startProvider } from '../server/start-provider.ts';
import { createThrowawayDatabase } from '../tests/support/throwaway-postgres.ts';
import { benchArgs, wholeNumber } from './bench-args.ts';

const USAGE = 'npx tsx bench/sync-server.ts [--seconds 10] [--connections 50] [--rounds 1] [--no-embedded] [--warm-up 10] [--per-second]';
const values = benchArgs(USAGE, {
  seconds: { type: 'string', default: '10' },
  connections: { type: 'string', default: '50' },
  // --no-embedded: the floor and PostgreSQL only (before/after rounds of a PostgreSQL change)
  'no-embedded': { type: 'boolean', default: false },
  rounds: { type: 'string', default: '1' },
  'per-second': { type: 'boolean', default: false },
  'warm-up': { type: 'string', default: '10' },
});
const SECONDS = wholeNumber('seconds', values.seconds, USAGE);
const CONNECTIONS = wholeNumber('connections', values.connections, USAGE);
const ROUNDS = wholeNumber('rounds', values.rounds, USAGE);
const WARM_UP = wholeNumber('warm-up', values['warm-up'], USAGE, 0);
// A prefix of this run's endpoints (each round's PostgreSQL database is new as well).
let runId = `${Date.now().toString(36)}`;
const HASH = 'bench-site-0001';
const ORIGIN = 'https://bench.example';
const KEY = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';

interface Figures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  perSecond: number[];
  /** This process's CPU (user + system) per request answered, in µs: autocannon's share is the same on both sides. */
  cpuPerRequest: number;
  /** The share of the measured seconds this process's event loop was busy (0..1). */
  busy: number;
  /** The PostgreSQL server's CPU per request answered, in µs, when it runs on this machine. */
  postgresCpuPerRequest?: number;
}

/**
 * utime + stime of a process, and cutime + cstime (of its children that have exited and been waited for), in clock
 * ticks (Linux's USER_HZ, 100 a second), from /proc/<pid>/stat.
 */
function statTicks(stat: string): { parent: number; ticks: number; exitedChildren: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    parent: Number(fields[1]),
    ticks: Number(fields[11]) + Number(fields[12]),
    exitedChildren: Number(fields[13]) + Number(fields[14]),
  };
}

/**
 * A reader of the CPU ticks the PostgreSQL server at `url` has used (its postmaster's children: backends, WAL writer,
 * checkpointer; those that have exited count through the postmaster's cutime, so a backend that ends during a row,
 * such as the bench's own reading connection, never makes the figure fall), or undefined when that server is not a
 * process of this machine that /proc shows.
 */
async function postgresTicks(url: string): Promise<(() => Promise<number>) | undefined> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const { parent: postmaster } = statTicks(await readFile(`/proc/${rows[0]!.pid}/stat`, 'utf8'));
    return async () => {
      const own = statTicks(await readFile(`/proc/${postmaster}/stat`, 'utf8'));
      let ticks = own.ticks + own.exitedChildren;
      for (const entry of await readdir('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
        if (!stat) continue;
        const child = statTicks(stat);
        if (child.parent === postmaster) ticks += child.ticks;
      }
      return ticks;
    };
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function subscriptionOf(n: number) {
  return JSON.stringify({
    endpoint: `https://push.bench.example/send/${runId}/${n}`,
    keys: { p256dh: KEY, auth: 'oMI2KGm4uNsKFv_2oqmNvg' },
  });
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** One request body in three: a new subscriber, an update of a known one, a language change of a known one. */
function mixedBodies(known: { id: string; secret: string }[]) {
  let counter = 0;
  return () => {
    counter += 1;
    const n = 1_000_000 + counter;
    const kind = counter % 3;
    // The subscriber's browser: its id and the secret its insert reply issued.
    const { id: subscriberId, secret: subscriberSecret } = known[counter % known.length] ?? { id: '', secret: '' };
    const common = { hash: HASH, browserType: 'chrome', origin: ORIGIN, userTimezone: 'Europe/Paris', userTimezoneOffset: '-60' };
    if (kind === 0 || known.length === 0) {
      return form({
        ...common,
        action: 'insert',
        subscription: subscriptionOf(n),
        subscriptionId: `sub-${runId}-${n}`,
        userLanguage: 'en-US',
      });
    }
    if (kind === 1) {
      const index = counter % known.length;
      return form({
        ...common,
        action: 'update',
        subscriberId,
        subscriberSecret,
        subscription: subscriptionOf(index),
        subscriptionId: `sub-${runId}-${index}-${counter}`,
      });
    }
    return form({
      ...common,
      action: 'http-sync',
      subscriberId,
      subscriberSecret,
      subscription: subscriptionOf(counter % known.length),
      userLanguage: counter % 2 ? 'fr-FR' : 'en-US',
    });
  };
}

/** `database`: the PostgreSQL URL the target uses, whose CPU is counted too when it runs on this machine. */
async function load(name: string, url: string, nextBody: () => string, database?: string): Promise<Figures> {
  if (WARM_UP > 0) await drive(url, nextBody, WARM_UP);
  const perSecond: number[] = [];
  const postgres = database ? await postgresTicks(database) : undefined;
  const postgresBefore = await postgres?.();
  const cpu = process.cpuUsage();
  const loop = performance.eventLoopUtilization();
  const result = await drive(url, nextBody, SECONDS, perSecond);
  const used = process.cpuUsage(cpu);
  const busy = performance.eventLoopUtilization(loop).utilization;
  const postgresAfter = await postgres?.();
  const requests = Math.max(1, result.requests.total);
  return {
    name,
    perSecond,
    cpuPerRequest: (used.user + used.system) / requests,
    busy,
    postgresCpuPerRequest:
      postgresBefore === undefined || postgresAfter === undefined ? undefined : ((postgresAfter - postgresBefore) * 10_000) / requests,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** CONNECTIONS connections posting `nextBody()` for `seconds`; each second's count pushed to `perSecond`. */
function drive(url: string, nextBody: () => string, seconds: number, perSecond: number[] = []): Promise<autocannon.Result> {
  return new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon(
      {
        url: `${url}/syncSubscriptionAction.php`,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
            setupRequest: (request) => ({ ...request, body: nextBody() }),
          },
        ],
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    // (the types give 'tick' no argument; autocannon passes the second's count)
    (run as unknown as NodeJS.EventEmitter).on('tick', ({ counter }: { counter: number }) => perSecond.push(counter));
  });
}

async function seed(url: string, count: number): Promise<{ id: string; secret: string }[]> {
  const ids: { id: string; secret: string }[] = [];
  for (let index = 0; index < count; index += 1) {
    const response = await fetch(`${url}/syncSubscriptionAction.php`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
      body: form({ hash: HASH, action: 'insert', subscription: subscriptionOf(index), subscriptionId: `sub-${runId}-${index}` }),
    });
    const reply = (await response.json()) as { subscriberId?: string; subscriberSecret?: string };
    if (reply.subscriberId && reply.subscriberSecret) ids.push({ id: reply.subscriberId, secret: reply.subscriberSecret });
  }
  return ids;
}

/** The provider as `push-kit serve` runs it; `database` a PostgreSQL URL, absent for the embedded database. */
async function measureProvider(name: string, work: string, database?: string): Promise<Figures> {
  await mkdir(work, { recursive: true });
  const configFile = join(work, 'bench.json');
  await writeFile(
    configFile,
    JSON.stringify({ hash: HASH, companyName: 'Bench', origin: ORIGIN, serverSyncUrl: 'http://127.0.0.1:1', vapidPublicKey: KEY }),
  );
  const provider = await startProvider({
    configs: [configFile],
    dist: join(work, 'dist'),
    database,
    stateDir: join(work, database ? 'state-postgres' : 'state'),
    rateLimit: false,
    // the bench's subscriptions are on a push service that does not exist: it is never sent to
    pushServices: ['https://push.bench.example'],
  });
  try {
    const known = await seed(provider.url, 200);
    return await load(name, provider.url, mixedBodies(known), database);
  } finally {
    await provider.close();
  }
}

async function measureFloor(): Promise<Figures> {
  const app = Fastify();
  await app.register(formbody);
  app.post('/syncSubscriptionAction.php', async (request) => {
    const body = request.body as Record<string, string>;
    JSON.parse(body.subscription ?? '{}');
    return { status: 'success', subscriberId: 'floor' };
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    return await load(
      'floor (fastify, no database)',
      url,
      mixedBodies([
        { id: 'a', secret: 'secret-a' },
        { id: 'b', secret: 'secret-b' },
      ]),
    );
  } finally {
    await app.close();
  }
}

const work = await mkdtemp(join(tmpdir(), 'push-kit-bench-sync-'));
const loadBefore = loadavg()[0]!;
const rounds: Figures[][] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  runId = `${Date.now().toString(36)}r${round}`;
  const results: Figures[] = [await measureFloor()];
  if (!values['no-embedded']) results.push(await measureProvider('push-kit, embedded database (PGlite)', join(work, `r${round}`)));
  if (process.env.PUSHKIT_BENCH_DATABASE_URL) {
    // a new database each round, as the embedded row's new state folder: rows left by earlier rounds and runs (the
    // server's own database had grown to 810 MB of them) would make each round insert into larger indexes
    const database = await createThrowawayDatabase(process.env.PUSHKIT_BENCH_DATABASE_URL, 'pushkit_bench_sync');
    try {
      results.push(await measureProvider('push-kit, PostgreSQL', join(work, `r${round}`), database.url));
    } finally {
      await database.drop();
    }
  } else if (round === 0) {
    console.log('(PostgreSQL skipped: set PUSHKIT_BENCH_DATABASE_URL=postgres://... to include it)');
  }
  rounds.push(results);
}
await rm(work, { recursive: true, force: true });

console.log(
  `\nsync endpoint, ${CONNECTIONS} connections for ${SECONDS} s each after ${WARM_UP} s of warm-up, mix of insert / update / http-sync` +
    ` (load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end)`,
);
console.log(
  'target'.padEnd(40),
  'req/s'.padStart(8),
  'p50 ms'.padStart(8),
  'p99 ms'.padStart(8),
  'non-2xx'.padStart(8),
  'vs floor'.padStart(9),
  'µs CPU/req'.padStart(11),
  'busy'.padStart(6),
  'PostgreSQL µs CPU/req'.padStart(22),
);
for (const [index, results] of rounds.entries()) {
  if (ROUNDS > 1) console.log(`round ${index + 1}`);
  const floor = results[0]!;
  for (const figures of results) {
    console.log(
      figures.name.padEnd(40),
      figures.requestsPerSecond.toFixed(0).padStart(8),
      String(figures.p50).padStart(8),
      String(figures.p99).padStart(8),
      String(figures.non2xx + figures.errors).padStart(8),
      `${(figures.requestsPerSecond / floor.requestsPerSecond).toFixed(3)}x`.padStart(9),
      figures.cpuPerRequest.toFixed(0).padStart(11),
      `${(figures.busy * 100).toFixed(0)}%`.padStart(6),
      (figures.postgresCpuPerRequest === undefined ? '' : figures.postgresCpuPerRequest.toFixed(0)).padStart(22),
    );
    if (values['per-second']) console.log('  per second:', figures.perSecond.join(' '));
  }
}
if (ROUNDS > 1) {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`median of ${ROUNDS} rounds`);
  for (const [index, { name }] of rounds[0]!.entries()) {
    const ratios = rounds.map((results) => results[index]!.requestsPerSecond / results[0]!.requestsPerSecond);
    const p99s = rounds.map((results) => results[index]!.p99);
    const cpu = median(rounds.map((results) => results[index]!.cpuPerRequest));
    const busy = median(rounds.map((results) => results[index]!.busy));
    const postgres = rounds.map((results) => results[index]!.postgresCpuPerRequest).filter((value) => value !== undefined);
    console.log(
      name.padEnd(40),
      `ratio ${median(ratios).toFixed(3)}x`,
      `p99 ${median(p99s)} ms`,
      `CPU ${cpu.toFixed(0)} µs/req, busy ${(busy * 100).toFixed(0)}%`,
      postgres.length > 0 ? `PostgreSQL ${median(postgres).toFixed(0)} µs/req` : '',
    );
  }
}
