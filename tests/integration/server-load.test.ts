// The sync call under a short load (50 connections for 4 s, autocannon on loopback): no 5xx, no connection
// error or timeout, and every insert answered 200 is stored once under the subscriber id it was answered
// with. On the embedded database, and on PostgreSQL when PUSHKIT_TEST_DATABASE_URL is set (in a database of
// its own, dropped afterwards). The rate limiter is turned off, as a provider behind a load balancer would
// see this load from many addresses. The long form is bench/soak.ts.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../config/load-config.ts';
import { createApp } from '../../server/http/app.ts';
import { PushServiceAllowlist } from '../../server/push/push-services.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import type { HostedSite } from '../../server/sites.ts';
import {
  LOAD_PUSH_SERVICE,
  checkInsertsStored,
  loadProblems,
  loadSiteConfig,
  newRunId,
  runSyncLoad,
  seedSubscribers,
  summaryLine,
} from '../../bench/sync-load.ts';
import { openThrowawayPostgres } from '../support/throwaway-postgres.ts';
import { seedMigratedDatabase } from '../support/migrated-database.ts';
import { tempDir } from '../support/server.ts';

const CONNECTIONS = 50;
const SECONDS = 4;
const postgresUrl = process.env.PUSHKIT_TEST_DATABASE_URL;

function site(hash: string): HostedSite {
  const loaded = parseConfigText('load.json', JSON.stringify(loadSiteConfig(hash)));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  return { name: 'load', hash, file: 'load.json', config: loaded.config, builtDir: '/nonexistent' };
}

async function loadAndCheck(db: Database) {
  const runId = newRunId();
  const hash = `load-${runId}`;
  const app = await createApp({
    sites: [site(hash)],
    db,
    rateLimit: false,
    pushServices: PushServiceAllowlist.fromSetting([LOAD_PUSH_SERVICE]),
  });
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const known = await seedSubscribers(url, runId, [hash], 50);
    const result = await runSyncLoad({ url, runId, known, connections: CONNECTIONS, durationSeconds: SECONDS });
    const check = await checkInsertsStored(db, result.acceptedInserts);
    console.log(`sync load, ${db.kind}: ${summaryLine(result, check)}`);

    expect(loadProblems(result, check)).toEqual([]);
    expect(result.statusClasses['5xx']).toBe(0);
    expect(result.errors).toBe(0);
    expect(result.timeouts).toBe(0);
    // every answer was a 200: nothing was rate limited or refused
    expect(result.statusCodes).toEqual({ '200': result.requests });
    expect(result.requests).toBeGreaterThan(CONNECTIONS);
    expect(check.accepted).toBeGreaterThan(result.requests / 4);
    expect(check.stored).toBe(check.accepted);

    const { rows } = await db.query<{ count: string }>('SELECT count(*) AS count FROM subscribers WHERE site_hash = $1', [hash]);
    // the seeds, the accepted inserts, and at most one insert per connection cut off when the run ended
    expect(Number(rows[0]!.count)).toBeGreaterThanOrEqual(50 + check.accepted);
    expect(Number(rows[0]!.count)).toBeLessThanOrEqual(50 + check.accepted + CONNECTIONS);
  } finally {
    await app.close();
  }
}

describe('the sync call under load', () => {
  it(`on the embedded database: ${CONNECTIONS} connections for ${SECONDS} s, no 5xx, every accepted insert stored once`, async () => {
    const dir = await tempDir('pushkit-load-');
    await seedMigratedDatabase(`${dir.path}/db`);
    const db = await openDatabase({ dataDir: `${dir.path}/db` });
    try {
      await loadAndCheck(db);
    } finally {
      await db.close();
      await dir.remove();
    }
  }, 40_000);

  it.skipIf(!postgresUrl)(
    `on PostgreSQL: ${CONNECTIONS} connections for ${SECONDS} s, no 5xx, every accepted insert stored once`,
    async () => {
      const { db, cleanup } = await openThrowawayPostgres(postgresUrl!, 'pushkit_load');
      try {
        await loadAndCheck(db);
      } finally {
        await cleanup();
      }
    },
    40_000,
  );
});
