// A database of its own on the PostgreSQL server the test command provides (PUSHKIT_TEST_DATABASE_URL), so tests
// sharing that server never see each other's rows; dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../server/db/database.ts';

/** One statement on the server's own database, outside any throwaway one. */
export async function asAdmin(serverUrl: string, sql: string, params: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql, params);
  } finally {
    await client.end();
  }
}

export interface ThrowawayDatabase {
  /** The new database's URL, on the same server. */
  url: string;
  drop(): Promise<void>;
}

export async function createThrowawayDatabase(serverUrl: string, prefix = 'pushkit_test'): Promise<ThrowawayDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await asAdmin(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => asAdmin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A throwaway database opened (and migrated) as the provider opens it; `cleanup` closes and drops it. */
export async function openThrowawayPostgres(
  serverUrl: string,
  prefix?: string,
): Promise<{ db: Database; url: string; cleanup(): Promise<void> }> {
  const throwaway = await createThrowawayDatabase(serverUrl, prefix);
  const db = await openDatabase({ url: throwaway.url, dataDir: '/nonexistent' });
  return {
    db,
    url: throwaway.url,
    cleanup: async () => {
      await db.close().catch(() => undefined);
      await throwaway.drop();
    },
  };
}
