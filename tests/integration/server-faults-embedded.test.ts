// The embedded database survives `kill -9` of the provider in the middle of sync inserts: a real
// `push-kit serve` process is killed three times while requests are in flight and restarted on the same data
// folder. Every insert that was answered 200 is there, intact, with its event; an insert cut off by the kill
// is either wholly there or wholly absent; the indexes and table pages check clean (amcheck).
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { amcheck } from '@electric-sql/pglite/contrib/amcheck';
import { afterAll, describe, expect, it } from 'vitest';
import { CACHE_DIR_ENV } from '../../server/db/embedded-initdb.ts';
import { lockEmbeddedDatabase } from '../../server/db/embedded-lock.ts';
import { seedMigratedDatabase } from '../support/migrated-database.ts';
import { tempDir } from '../support/server.ts';
import {
  BIN,
  closeAgents,
  FAULT_SITE,
  insertForm,
  killHard,
  postSync,
  randomSubscription,
  startServe,
  stopGracefully,
  STORED_SUBSCRIBERS_SQL,
  storedIntact,
  writeFaultSite,
  type ServeProcess,
  type StoredSubscriber,
  type Subscription,
} from '../support/server-faults.ts';
import { START_DEADLINE_MS, timeoutForProcesses } from '../support/process-ready.ts';

const KILLS = 3;
const WRITERS = 16;
const removals: (() => Promise<void>)[] = [];
afterAll(async () => {
  await closeAgents();
  for (const remove of removals) await remove();
});

/** Sends inserts from WRITERS loopback addresses until the process dies; sorts each into accepted or unknown. */
function driveInserts(
  serve: ServeProcess,
  cycle: number,
  accepted: Map<string, { id: string; subscription: Subscription }>,
  cutOff: Map<string, Subscription>,
) {
  let stopped = false;
  let count = 0;
  const writer = async (n: number) => {
    while (!stopped) {
      const subscription = randomSubscription(`kill${cycle}-w${n}`);
      try {
        const answer = await postSync(serve.url, insertForm(subscription), n);
        if (answer.statusCode === 200 && answer.body.status === 'success') {
          accepted.set(subscription.endpoint, { id: answer.body.subscriberId!, subscription });
          count += 1;
        } else {
          // each writer has its own address, well under the per-address limit: a 429 is a failure too
          throw new Error(`insert answered ${answer.statusCode} ${JSON.stringify(answer.body)}`);
        }
      } catch (error) {
        if (stopped || serve.child.killed) {
          // sent, but the process died before answering: committed or not, nobody was told 200
          cutOff.set(subscription.endpoint, subscription);
          return;
        }
        throw error;
      }
    }
  };
  const done = Promise.all(Array.from({ length: WRITERS }, (_, n) => writer(n + cycle * WRITERS)));
  return {
    accepted: () => count,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

async function readRows(dataDir: string): Promise<{ rows: StoredSubscriber[]; corruption: unknown[] }> {
  const unlock = await lockEmbeddedDatabase(dataDir);
  const db = await PGlite.create(dataDir, { extensions: { amcheck } });
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS amcheck');
    // heapallindexed: every row of the table must be found in each index
    await db.query(
      `SELECT bt_index_check(i.indexrelid, true) FROM pg_index i WHERE i.indrelid IN ('subscribers'::regclass, 'events'::regclass)`,
    );
    const corruption = [
      ...(await db.query(`SELECT * FROM verify_heapam('subscribers')`)).rows,
      ...(await db.query(`SELECT * FROM verify_heapam('events')`)).rows,
    ];
    const { rows } = await db.query<StoredSubscriber>(STORED_SUBSCRIBERS_SQL, [FAULT_SITE.hash]);
    return { rows, corruption };
  } finally {
    await db.close();
    await unlock();
  }
}

// The two tests use folders and processes of their own: they run side by side, as the other fault files' do. The
// first starts serve KILLS + 1 times, each run up to 4 s, the second twice: each may take its starts' deadlines.
describe.concurrent('embedded database under kill -9', { timeout: timeoutForProcesses(KILLS + 1) + KILLS * 4000 }, () => {
  it(`keeps every answered insert intact across ${KILLS} kills mid-write, and the restarted provider takes the lock over`, async () => {
    const project = await tempDir('pushkit-faults-embedded-');
    removals.push(project.remove);
    const siteFile = await writeFaultSite(project.path);
    const dataDir = join(project.path, '.push-kit', 'db');
    // the database starts migrated (migrated-database.ts): the kills come mid-write, and the next test kills a creation
    await seedMigratedDatabase(dataDir);
    const accepted = new Map<string, { id: string; subscription: Subscription }>();
    const cutOff = new Map<string, Subscription>();

    for (let cycle = 0; cycle < KILLS; cycle += 1) {
      const serve = await startServe(project.path, siteFile);
      const load = driveInserts(serve, cycle, accepted, cutOff);
      const started = Date.now();
      // let writes pile up, then kill while WRITERS requests are in flight
      while (load.accepted() < 120 && Date.now() - started < 4000) await new Promise((resolve) => setTimeout(resolve, 20));
      await killHard(serve);
      await load.stop();
      expect(load.accepted(), `cycle ${cycle}: inserts answered before the kill`).toBeGreaterThan(0);
      // the killed process left its lock behind; the next start must take it over
      expect((await readFile(`${dataDir}.lock`, 'utf8')).trim()).toBe(String(serve.pid));
    }

    const last = await startServe(project.path, siteFile);
    expect(last.output()).toContain('(embedded database .push-kit/db)');
    expect(await stopGracefully(last)).toBe(0);

    const { rows, corruption } = await readRows(dataDir);
    expect(corruption).toEqual([]);
    const byEndpoint = new Map(rows.map((row) => [row.endpoint, row]));
    expect(byEndpoint.size).toBe(rows.length);
    const lost = [...accepted.values()].filter(({ id, subscription }) => {
      const row = byEndpoint.get(subscription.endpoint);
      return !storedIntact(row, subscription) || row!.id !== id;
    });
    expect(lost.map(({ subscription }) => subscription.endpoint)).toEqual([]);
    // a request cut off by the kill committed wholly (row and event) or not at all
    for (const subscription of cutOff.values()) {
      const row = byEndpoint.get(subscription.endpoint);
      if (row) expect(storedIntact(row, subscription), subscription.endpoint).toBe(true);
    }
    expect(rows.every((row) => accepted.has(row.endpoint) || cutOff.has(row.endpoint))).toBe(true);
    expect(accepted.size).toBeGreaterThanOrEqual(KILLS);
  });

  it('a provider killed while it creates the database leaves nothing half-made; the next start creates it', async () => {
    const project = await tempDir('pushkit-faults-initdb-');
    removals.push(project.remove);
    const siteFile = await writeFaultSite(project.path);
    const dataDir = join(project.path, '.push-kit', 'db');
    // a cache of its own, empty: this start must run initdb (in a child process) to make the template
    const cache = join(project.path, 'cache');
    const env = { ...process.env, DATABASE_URL: '', NO_COLOR: '1', [CACHE_DIR_ENV]: cache };
    const first = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--sites', siteFile], { cwd: project.path, env, stdio: 'ignore' });
    const exited = new Promise((done) => first.on('exit', done));
    const entries = (path: string) => readdir(path).catch(() => [] as string[]);
    // the start's own deadline: only a start that hangs before initdb gets there
    const deadline = Date.now() + START_DEADLINE_MS;
    while (!(await entries(cache)).some((entry) => /^pglite-initdb-\w+\.\d+-\w+$/.test(entry)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await entries(cache), 'the template is built beside its place in the cache').toHaveLength(1);
    first.kill('SIGKILL');
    await exited;
    expect(await entries(dataDir), 'the data folder holds nothing of the interrupted creation').toEqual([]);
    expect(
      (await entries(cache)).filter((entry) => /^pglite-initdb-\w+$/.test(entry)),
      'no template was finished',
    ).toEqual([]);

    const next = await startServe(project.path, siteFile, { [CACHE_DIR_ENV]: cache });
    // the next start made the template (what the killed one left is cleared once its child has gone) and copied it
    expect((await entries(cache)).filter((entry) => /^pglite-initdb-\w+$/.test(entry))).toHaveLength(1);
    expect(await entries(`${dataDir}.initdb`)).toEqual([]);
    const answer = await postSync(next.url, insertForm(randomSubscription('after-initdb-kill')), 1);
    expect(answer.statusCode).toBe(200);
    expect(answer.body.status).toBe('success');
    expect(await stopGracefully(next)).toBe(0);
  });
});
