// The sync action tests on a real PostgreSQL server, when the test command provides one
// (PUSHKIT_TEST_DATABASE_URL); each run works in a database of its own, dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/database.ts';
import { defineSyncTests } from './server-support.ts';

const url = process.env.PUSHKIT_TEST_DATABASE_URL;

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function openThrowawayDatabase() {
  const name = `pushkit_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  const databaseUrl = new URL(url!);
  databaseUrl.pathname = `/${name}`;
  const db = await openDatabase({ url: databaseUrl.toString(), dataDir: '/nonexistent' });
  return {
    db,
    url: databaseUrl.toString(),
    cleanup: async () => {
      await db.close().catch(() => undefined);
      await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name}`));
    },
  };
}

defineSyncTests('PostgreSQL server', openThrowawayDatabase, !url);

describe.skipIf(!url)('PostgreSQL storage', () => {
  it('several processes opening one database together migrate it once', async () => {
    const first = await openThrowawayDatabase();
    try {
      const more = await Promise.all(Array.from({ length: 4 }, () => openDatabase({ url: first.url, dataDir: '/nonexistent' })));
      const { rows } = await first.db.query<{ version: number }>('SELECT version FROM schema_migrations');
      expect(rows.map((row) => Number(row.version))).toEqual([1]);
      await Promise.all(more.map((db) => db.close()));
    } finally {
      await first.cleanup();
    }
  });
});

describe('PostgreSQL connection problems', () => {
  it('an unreachable server is reported as unavailable, not as a crash', async () => {
    await expect(openDatabase({ url: 'postgres://nobody@127.0.0.1:1/none', dataDir: '/nonexistent' })).rejects.toThrow(/^database unavailable/);
  });

  it('a URL that is not postgres:// is refused with the reason', async () => {
    await expect(openDatabase({ url: 'mysql://localhost/db', dataDir: '/nonexistent' })).rejects.toThrow(/must start with postgres:\/\//);
  });
});
