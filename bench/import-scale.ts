// `push-kit import` at scale on PostgreSQL (issue 29): N rows (1,000,000 by default) of push-kit's CSV written to a
// file, imported by the import use case (server/import/: streamed, checked row by row, stored in batches), then
// the same file imported again (every row already there: what finishing a stopped import costs), and as the
// peer the same file loaded by PostgreSQL's own `COPY` into a bare table of the same columns: the floor any
// import of these rows sits on. Prints rows/s, time and the process's peak RSS for each, and the ratios.
//   npx tsx bench/import-scale.ts [--rows 1000000] [--keep-file]
//   PUSHKIT_BENCH_DATABASE_URL=postgres://... npx tsx bench/import-scale.ts   (a server of yours; else a throwaway cluster)
// Goal: 1,000,000 rows in at most 2 minutes on the 2-core VM, memory flat.
import { benchArgs, wholeNumber } from './bench-args.ts';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { importSubscribers } from '../server/import/index.ts';
import { PushServiceAllowlist } from '../server/push/push-services.ts';
import { testSite } from '../tests/support/server.ts';
import { startPostgresCluster } from '../tests/support/postgres-cluster.ts';
import { openThrowawayPostgres } from '../tests/support/throwaway-postgres.ts';

const USAGE = 'npx tsx bench/import-scale.ts [--rows 1000000] [--keep-file]';
const values = benchArgs(USAGE, { rows: { type: 'string', default: '1000000' }, 'keep-file': { type: 'boolean', default: false } });
const ROWS = wholeNumber('rows', values.rows, USAGE);
const MB = 1024 * 1024;

/** The CSV a migration brings: every row a real-looking subscription, one in five with tags, one in ten in segments. */
async function writeFile(file: string, rows: number): Promise<number> {
  const out = createWriteStream(file);
  out.write('endpoint,p256dh,auth,created_at,language,tags,segments\n');
  const created = Date.UTC(2024, 0, 1);
  let bytes = 0;
  for (let i = 0; i < rows; i += 1) {
    const key = randomBytes(65);
    key[0] = 4;
    const token = randomBytes(24).toString('base64url');
    const line =
      `https://fcm.googleapis.com/fcm/send/${token}:APA91b${i},${key.toString('base64url')},${randomBytes(16).toString('base64url')},` +
      `${new Date(created + i * 1000).toISOString()},${i % 3 ? 'en-US' : 'de-DE'},` +
      `${i % 5 === 0 ? `plan=${i % 2 ? 'gold' : 'free'};source=onesignal` : ''},${i % 10 === 0 ? 'newsletter' : ''}\n`;
    bytes += line.length;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return bytes;
}

/** The process's resident memory, sampled every 50 ms while `job` runs: the peak, and where it started. */
async function measured<T>(job: () => Promise<T>): Promise<{ result: T; seconds: number; startRss: number; peakRss: number }> {
  const startRss = process.memoryUsage.rss();
  let peakRss = startRss;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 50);
  const start = performance.now();
  try {
    const result = await job();
    return { result, seconds: (performance.now() - start) / 1000, startRss, peakRss: Math.max(peakRss, process.memoryUsage.rss()) };
  } finally {
    clearInterval(timer);
  }
}

const rate = (rows: number, seconds: number) => Math.round(rows / seconds).toLocaleString('en-US');

async function main(): Promise<void> {
  const given = process.env.PUSHKIT_BENCH_DATABASE_URL;
  const cluster = given ? undefined : await startPostgresCluster();
  const serverUrl = given ?? cluster?.url;
  if (!serverUrl) throw new Error('PostgreSQL is not installed (apt-get install postgresql) and PUSHKIT_BENCH_DATABASE_URL is not set');
  const dir = await mkdtemp(join(tmpdir(), 'pushkit-import-bench-'));
  // the server's COPY reads the file itself, as its own user
  await chmod(dir, 0o755);
  const file = join(dir, 'subscribers.csv');
  const { db, cleanup } = await openThrowawayPostgres(serverUrl, 'pushkit_import');
  try {
    const writeStart = performance.now();
    const bytes = await writeFile(file, ROWS);
    await chmod(file, 0o644);
    console.log(
      `wrote ${ROWS.toLocaleString('en-US')} rows (${(bytes / MB).toFixed(0)} MB) in ${((performance.now() - writeStart) / 1000).toFixed(1)} s`,
    );
    const site = testSite();
    const options = { site, pushServices: PushServiceAllowlist.known };

    const first = await measured(() => importSubscribers(db, createReadStream(file), options));
    const report = first.result;
    if (report.imported !== ROWS || report.invalid !== 0)
      throw new Error(`import: ${JSON.stringify({ ...report, problems: report.problems.slice(0, 3) })}`);
    const again = await measured(() => importSubscribers(db, createReadStream(file), options));
    if (again.result.imported !== 0 || again.result.existing !== ROWS) throw new Error(`second import: ${JSON.stringify(again.result)}`);

    // The floor: PostgreSQL's COPY of the same file into a bare table (no checks, no index but none, no ids).
    await db.query(
      `CREATE TABLE bare_import (endpoint text, p256dh text, auth text, created_at timestamptz, language text, tags text, segments text)`,
    );
    const copy = await measured(() => db.query(`COPY bare_import FROM '${file}' WITH (FORMAT csv, HEADER true)`));
    const { rows: sizes } = await db.query<{ subscribers: string; tags: string; memberships: string }>(
      `SELECT pg_total_relation_size('subscribers') AS subscribers, pg_total_relation_size('subscriber_tags') AS tags,
              pg_total_relation_size('segment_memberships') AS memberships`,
    );

    console.log('');
    console.log(`| ${ROWS.toLocaleString('en-US')} rows | time | rows/s | peak RSS (start) |`);
    console.log('| --- | --- | --- | --- |');
    const line = (name: string, run: { seconds: number; peakRss: number; startRss: number }) =>
      console.log(
        `| ${name} | ${run.seconds.toFixed(1)} s | ${rate(ROWS, run.seconds)} | ${(run.peakRss / MB).toFixed(0)} MB (${(run.startRss / MB).toFixed(0)} MB) |`,
      );
    line('push-kit import', first);
    line('push-kit import, again (all there)', again);
    line('peer: PostgreSQL COPY into a bare table', copy);
    console.log('');
    console.log(`import / COPY: ${(first.seconds / copy.seconds).toFixed(1)}x the floor's time`);
    console.log(
      `goal: 1,000,000 rows in 120 s or less: ${((first.seconds * 1_000_000) / ROWS).toFixed(0)} s per million (${first.seconds * (1_000_000 / ROWS) <= 120 ? 'met' : 'NOT met'})`,
    );
    console.log(
      `memory: peak RSS ${((first.peakRss - first.startRss) / MB).toFixed(0)} MB above the start, for a ${(bytes / MB).toFixed(0)} MB file`,
    );
    const size = sizes[0]!;
    console.log(
      `stored: subscribers ${(Number(size.subscribers) / ROWS).toFixed(0)} B/row with indexes, tags ${(Number(size.tags) / MB).toFixed(0)} MB, memberships ${(Number(size.memberships) / MB).toFixed(0)} MB`,
    );
  } finally {
    await cleanup();
    if (!values['keep-file']) await rm(dir, { recursive: true, force: true });
    await cluster?.remove();
  }
}

await main();
