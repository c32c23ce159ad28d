// The soak of issue 9: a `push-kit serve` process under a bounded loopback load of the sync call
// (/syncSubscriptionAction.php; by default 200 connections for 30 s, autocannon), one request in three
// inserting a subscriber never seen before. Afterwards the provider is stopped and its database is asked
// whether every insert answered 200 is stored, once, under the id it was answered with. A check, not only a
// figure: the exit code is 1 on any 5xx, connection error or timeout, refused request or missing insert.
//   npx tsx bench/soak.ts [--connections 200] [--duration 30] [--timeout 10] [--sites 4] [--seeds 25] [--postgres postgres://...] [--workers N]
// (--timeout: seconds a request may stay unanswered before it counts as a timeout; --seeds: subscribers per site
// inserted before the load, the targets of its updates and http-syncs; --workers: `serve --workers N`, PostgreSQL
// only, each worker with its own per-address rate limit.)
// Embedded database (PGlite, in a temporary folder) unless --postgres or PUSHKIT_SOAK_DATABASE_URL is given;
// on PostgreSQL the run's site hashes and endpoints are new, so a shared database is not disturbed.
//
// `push-kit serve` has no option to turn its per-IP rate limit off (600 requests per 10 s per address,
// server/http/rate-limit.ts), so each connection connects from its own loopback address (127.0.x.y), as distinct
// visitors would, and the load is spread over --sites sites (each may receive 20,000 writing requests per 10 s before
// the addresses over their fair share of 20 are refused).
// A 429 is counted and reported, not a failure.
import { benchArgs, wholeNumber } from './bench-args.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddedDatabaseDir, STATE_DIR } from '../server/state-paths.ts';
import { openDatabase } from '../server/db/database.ts';
import {
  LOAD_PUSH_SERVICE,
  checkInsertsStored,
  loadProblems,
  loadSiteConfig,
  newRunId,
  runSyncLoad,
  seedSubscribers,
  summaryLine,
} from './sync-load.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const USAGE =
  'npx tsx bench/soak.ts [--connections 200] [--duration 30] [--timeout 10] [--sites 4] [--seeds 25] [--postgres postgres://...] [--workers N]';
const values = benchArgs(USAGE, {
  connections: { type: 'string', default: '200' },
  duration: { type: 'string', default: '30' },
  timeout: { type: 'string', default: '10' },
  sites: { type: 'string', default: '4' },
  seeds: { type: 'string', default: '25' },
  postgres: { type: 'string' },
  workers: { type: 'string', default: '1' },
});
const WORKERS = wholeNumber('workers', values.workers, USAGE);
const CONNECTIONS = wholeNumber('connections', values.connections, USAGE);
const DURATION = wholeNumber('duration', values.duration, USAGE);
const TIMEOUT = wholeNumber('timeout', values.timeout, USAGE);
const SITES = wholeNumber('sites', values.sites, USAGE);
const SEEDS = wholeNumber('seeds', values.seeds, USAGE);
const postgresUrl = values.postgres ?? process.env.PUSHKIT_SOAK_DATABASE_URL;

interface Provider {
  url: string;
  process: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

async function startProvider(work: string): Promise<Provider> {
  const args = [
    join(ROOT, 'bin/push-kit.js'),
    'serve',
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--sites',
    join(work, 'site-configs', '*.json'),
  ];
  args.push('--dist', join(work, 'dist'));
  // the soak's load generator is one address with hundreds of connections
  args.push('--max-connections-per-address', '0');
  if (postgresUrl) args.push('--database', postgresUrl);
  if (WORKERS > 1) args.push('--workers', String(WORKERS));
  const child = spawn(process.execPath, args, {
    cwd: work,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATABASE_URL: '', PUSHKIT_PUSH_SERVICES: LOAD_PUSH_SERVICE },
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`push-kit serve did not start in 60 s:\n${output.join('')}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      const match = /listening on (http:\/\/[^\s]+)/.exec(output.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`push-kit serve exited (${code}) before listening:\n${output.join('')}`));
    });
  });
  return { url, process: child, output, exited };
}

/** Resident memory of a process and its children (the workers of `serve --workers`) in MB, from /proc (Linux). */
async function residentMb(pid: number | undefined): Promise<number | undefined> {
  if (!pid) return undefined;
  try {
    const children = (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry));
    const pids = [String(pid)];
    for (const child of children) {
      const stat = await readFile(`/proc/${child}/stat`, 'utf8').catch(() => '');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) pids.push(child);
    }
    let kb = 0;
    for (const each of pids) kb += Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${each}/status`, 'utf8').catch(() => ''))?.[1] ?? 0);
    return kb ? Math.round(kb / 1024) : undefined;
  } catch {
    return undefined;
  }
}

const work = await mkdtemp(join(tmpdir(), 'push-kit-soak-'));
const runId = newRunId();
const hashes = Array.from({ length: SITES }, (_, index) => `soak-${runId}-${index + 1}`);
await mkdir(join(work, 'site-configs'));
for (const [index, hash] of hashes.entries()) {
  await writeFile(join(work, 'site-configs', `soak-${index + 1}.json`), JSON.stringify(loadSiteConfig(hash)));
}

const storage = postgresUrl ? 'PostgreSQL' : 'embedded database (PGlite)';
let exitCode = 1;
const provider = await startProvider(work);
try {
  // the owner dashboard is built in the background on first start: let it finish before measuring
  await fetch(`${provider.url}/dashboard/`).catch(() => undefined);
  const known = await seedSubscribers(provider.url, runId, hashes, SEEDS);
  const memoryBefore = await residentMb(provider.process.pid);
  console.log(
    `soak: ${CONNECTIONS} connections for ${DURATION} s (timeout ${TIMEOUT} s) against push-kit serve at ${provider.url}, ${storage}, ${SITES} sites`,
  );
  const result = await runSyncLoad({
    url: provider.url,
    runId,
    known,
    connections: CONNECTIONS,
    durationSeconds: DURATION,
    timeoutSeconds: TIMEOUT,
    distinctSourceAddresses: true,
  });
  const memoryAfter = await residentMb(provider.process.pid);

  provider.process.kill('SIGTERM');
  const serveExit = await provider.exited;
  const db = await openDatabase({ url: postgresUrl, dataDir: embeddedDatabaseDir(join(work, STATE_DIR)) });
  let check;
  let storedRows = 0;
  try {
    check = await checkInsertsStored(db, result.acceptedInserts);
    const { rows } = await db.query<{ count: string }>('SELECT count(*) AS count FROM subscribers WHERE site_hash = ANY($1::text[])', [
      hashes,
    ]);
    storedRows = Number(rows[0]!.count);
  } finally {
    await db.close();
  }

  const problems = loadProblems(result, check);
  if (serveExit !== 0) problems.push(`push-kit serve exited with ${serveExit} after SIGTERM`);
  console.log(
    `responses by class: ${Object.entries(result.statusClasses)
      .map(([key, count]) => `${key} ${count}`)
      .join(', ')}`,
  );
  console.log(`status codes: ${JSON.stringify(result.statusCodes)}; connection errors ${result.errors}, timeouts ${result.timeouts}`);
  console.log(
    `inserts sent ${result.insertsSent}, answered 200 ${check.accepted}; subscribers stored in the run's sites ${storedRows} (${SITES * SEEDS} seeds)`,
  );
  if (memoryBefore !== undefined)
    console.log(`provider resident memory: ${memoryBefore} MB before the load, ${memoryAfter ?? '?'} MB after`);
  console.log(summaryLine(result, check));
  if (problems.length) {
    console.log(`SOAK FAILED:\n  ${problems.join('\n  ')}`);
    console.log(`provider output (last lines):\n${provider.output.join('').split('\n').slice(-20).join('\n')}`);
  } else {
    console.log('soak passed');
    exitCode = 0;
  }
} finally {
  if (provider.process.exitCode === null) {
    provider.process.kill('SIGTERM');
    await provider.exited;
  }
  await rm(work, { recursive: true, force: true });
}
process.exitCode = exitCode;
