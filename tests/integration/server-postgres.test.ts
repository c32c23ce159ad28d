// The sync action tests on a real PostgreSQL server, when the test command provides one
// (PUSHKIT_TEST_DATABASE_URL); each run works in a database of its own, dropped afterwards.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.ts';
import { MIGRATIONS } from '../../server/db/migrations.ts';
import { openDatabase } from '../../server/db/database.ts';
import { asAdmin, openThrowawayPostgres } from '../support/throwaway-postgres.ts';
import { defineSyncTests, newSubscription, postSync, SITE_HASH, testSite } from '../support/server.ts';

const url = process.env.PUSHKIT_TEST_DATABASE_URL;

const openThrowawayDatabase = () => openThrowawayPostgres(url!);

defineSyncTests('PostgreSQL server', openThrowawayDatabase, !url);

describe.skipIf(!url)('PostgreSQL storage', () => {
  it('several processes opening one database together migrate it once', async () => {
    const first = await openThrowawayDatabase();
    try {
      const more = await Promise.all(Array.from({ length: 4 }, () => openDatabase({ url: first.url, dataDir: '/nonexistent' })));
      await Promise.all(more.map((db) => db.close()));
      const { rows } = await first.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((row) => Number(row.version))).toEqual(MIGRATIONS.map((migration) => migration.version));
    } finally {
      await first.cleanup();
    }
  });
});

describe.skipIf(!url)('PostgreSQL connections lost', () => {
  it('after the server drops every connection, the provider answers 503 at worst and then syncs again, losing nothing', async () => {
    const throwaway = await openThrowawayDatabase();
    const app = await createApp({ sites: [testSite()], db: throwaway.db });
    try {
      const before = newSubscription();
      expect((await postSync(app, { hash: SITE_HASH, action: 'insert', subscription: before.json })).statusCode).toBe(200);
      const database = new URL(throwaway.url).pathname.slice(1);
      await asAdmin(url!, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
        database,
      ]);
      const after = newSubscription();
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 5 && statuses.at(-1) !== 200; attempt += 1) {
        statuses.push((await postSync(app, { hash: SITE_HASH, action: 'insert', subscription: after.json })).statusCode);
      }
      expect(statuses.at(-1)).toBe(200);
      for (const status of statuses.slice(0, -1)) expect(status).toBe(503);
      const { rows } = await throwaway.db.query('SELECT 1 FROM subscribers WHERE endpoint = ANY($1::text[])', [
        [before.endpoint, after.endpoint],
      ]);
      expect(rows).toHaveLength(2);
    } finally {
      await app.close();
      await throwaway.cleanup();
    }
  });
});

describe('PostgreSQL connection problems', () => {
  it('an unreachable server is reported as unavailable, not as a crash', async () => {
    await expect(openDatabase({ url: 'postgres://nobody@127.0.0.1:1/none', dataDir: '/nonexistent' })).rejects.toThrow(
      /^database unavailable/,
    );
  });

  it('a URL that is not postgres:// is refused with the reason', async () => {
    await expect(openDatabase({ url: 'mysql://localhost/db', dataDir: '/nonexistent' })).rejects.toThrow(/must start with postgres:\/\//);
  });
});
