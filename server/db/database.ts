// The provider's storage: one PostgreSQL dialect, either embedded (PGlite, data in a folder) or a real
// PostgreSQL server through a `pg` pool. Both sit behind the small `Database` interface; SQL is always
// parameterised. Migrations run on open.
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { ServerError } from '../errors.ts';
import { initialiseEmbeddedDatabase } from './embedded-initdb.ts';
import { lockEmbeddedDatabase } from './embedded-lock.ts';
import { MIGRATIONS } from './migrations.ts';
import { makeFolderPrivate, makePrivate } from './private-files.ts';

export interface QueryOptions {
  /**
   * On PostgreSQL, a named prepared statement: parsed and planned once per connection, then only bound and run.
   * For a hot path's fixed texts only (each distinct text stays prepared on every connection that ran it).
   */
  prepare?: boolean;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<{ rows: T[] }>;
}

export interface Database extends Queryable {
  readonly kind: 'embedded' | 'postgres';
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The database cannot be reached (down, restarting, connection lost): E_DATABASE_UNAVAILABLE, answered 503. */
export const databaseUnavailable = (cause: unknown) => ServerError.causedBy(cause, 'E_DATABASE_UNAVAILABLE');

const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_NODE_CODES.has(code)) return true;
    // SQLSTATE classes 08 (connection exception), 57P (operator intervention: shutdown, crash), 53 (resources)
    if (/^(08|57P|53)/.test(code)) return true;
  }
  const message = (error as Error)?.message ?? '';
  return /Connection terminated|Client has encountered a connection error|connect ECONNREFUSED|timeout exceeded when trying to connect/.test(
    message,
  );
}

function translated(error: unknown): unknown {
  return isUnavailable(error) ? databaseUnavailable(error) : error;
}

// Several serve processes may start together against one PostgreSQL: one of them migrates at a time.
const MIGRATION_LOCK_ID = 7_405_117;

/** Whether every migration is applied already: one read, no lock, no transaction (a missing table is a no). */
async function migrated(db: Database): Promise<boolean> {
  const rows = await db.query<{ version: number }>('SELECT version FROM schema_migrations').then(
    (result) => result.rows,
    () => [],
  );
  const applied = new Set(rows.map((row) => Number(row.version)));
  return MIGRATIONS.every((migration) => applied.has(migration.version));
}

async function migrate(db: Database): Promise<void> {
  // Most opens find every migration applied (a second start, each command): one read, not the locked transaction,
  // whose CREATE TABLE IF NOT EXISTS alone took ~100 ms of a start on the embedded database.
  if (await migrated(db)) return;
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    // Under the lock: two processes creating it at once on a fresh database collide in the catalogue
    // (duplicate key in pg_type_typname_nsp_index), IF NOT EXISTS notwithstanding.
    await tx.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => Number(row.version)));
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      for (const statement of migration.statements) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    }
  });
}

/**
 * Runs jobs one at a time, each starting in its own turn of the event loop. PGlite executes SQL synchronously
 * on the main thread, and a promise chain that is resolved without I/O runs to its end before the loop polls
 * again: under load a single turn ran every queued statement (~0.6 s at 200 connections), and Node accepts
 * one new connection per turn, so waiting connections starved past a client's 10 s timeout. One statement or
 * transaction per turn keeps turns a few milliseconds long.
 */
function turnByTurn(): <T>(job: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(job: () => Promise<T>): Promise<T> => {
    const run = tail.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(job);
    tail = run.catch(() => undefined);
    return run;
  };
}

/**
 * PGlite's start parameters with a smaller buffer cache. Its default (PostgreSQL's 128 MB of shared_buffers)
 * lives in the WebAssembly heap, which never shrinks, on top of the files the operating system caches anyway:
 * 32 MB keeps a provider on the embedded database about 100 MB smaller (bench/README.md, memory).
 */
export const EMBEDDED_SHARED_BUFFERS = '32MB';
function embeddedStartParams(client: { defaultStartParams?: string[] }): string[] | undefined {
  return client.defaultStartParams ? [...client.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`] : undefined;
}

/**
 * PGlite's PostgreSQL is 8.7 MB of WebAssembly. V8 runs each function on its baseline compiler first and has its
 * background threads optimise one once it has run for a budget. At V8's default budget the start's one-off code
 * (loading the catalogue, checking or applying the migrations) crossed it, and optimising it took as much CPU as
 * the start's main thread: 1.1-1.4 s of `serve`'s 2.2-2.9 s of CPU to its ready line on a second start, 2.5-3.4 s
 * of 4.2-6.1 s on a first (bench/serve-start.ts). At a hundred times the budget only code that keeps running is
 * optimised; a provider's queries reach it within their first few thousand. A budget given to Node is kept.
 */
export const WASM_TIERING_BUDGET = 180_000_000;
let tieringSet = false;
function setWasmTieringBudget(): void {
  if (tieringSet || process.execArgv.some((arg) => arg.startsWith('--wasm-tiering-budget'))) return;
  tieringSet = true;
  // read when a WebAssembly instance is made, so it holds for PGlite's
  setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
}

/**
 * The planner statistics of the embedded database. PGlite runs no autovacuum, so nothing gathered them, and a
 * function's statements (the sync batch's) keep the plan made in their first calls for the life of the process.
 * Planned while a site was small, without statistics, a sync's look-up of a subscriber by (site_hash, endpoint) or
 * (site_hash, subscription_id) walked subscribers_site_status, every row of the site (its cost tied with the unique
 * index's): a provider whose site grew from empty spent 1.5 ms of CPU per insert over its first 280 subscribers and
 * 9.2 ms at 10,000, growing with each one; 0.35 ms once analysed (issue 34, measured in PGlite). A table is
 * analysed, as autovacuum would, once it has grown by a fifth (and 8 pages) since it last was: at the open and every
 * EMBEDDED_ANALYZE_EVERY_MS after, in the queue of statements. ANALYZE makes the cached plans be made again.
 */
export const EMBEDDED_ANALYZE_EVERY_MS = 30_000;
export async function analyzeGrownTables(db: Queryable): Promise<void> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND pg_relation_size(c.oid) / 8192 > 8 + 1.2 * greatest(c.relpages, 0)`,
  );
  for (const { name } of rows) await db.query(`ANALYZE "${name}"`);
}

function embedded(client: PGlite, dataDir: string, unlock: () => Promise<void>): Database {
  const queued = turnByTurn();
  const analyzing = setInterval(() => void analyzeGrownTables(db).catch(() => undefined), EMBEDDED_ANALYZE_EVERY_MS);
  analyzing.unref();
  const db: Database = {
    kind: 'embedded',
    query<T>(sql: string, params: unknown[] = []) {
      return queued(async () => ({ rows: (await client.query<T>(sql, params)).rows }));
    },
    transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return queued(() =>
        client.transaction(async (tx) =>
          fn({
            async query<R>(sql: string, params: unknown[] = []) {
              const result = await tx.query<R>(sql, params);
              return { rows: result.rows };
            },
          }),
        ),
      );
    },
    async close() {
      clearInterval(analyzing);
      try {
        await queued(() => client.close());
        // What PostgreSQL wrote with fopen while running (pg_internal.init) and at shutdown (pg_stat/) has the umask's
        // modes; the folder's 0700 already shuts others out, so a failure here does not fail the close.
        await makePrivate(dataDir).catch(() => undefined);
      } finally {
        await unlock();
      }
    },
  };
  return db;
}

/** The name of a prepared statement: one per distinct text, the same on every connection and process. */
const statementNames = new Map<string, string>();
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) {
    name = `pk_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    statementNames.set(sql, name);
  }
  return name;
}

function pgQuery(sql: string, params: unknown[], options?: QueryOptions): pg.QueryConfig {
  return options?.prepare ? { name: statementName(sql), text: sql, values: params } : { text: sql, values: params };
}

function server(pool: pg.Pool): Database {
  return {
    kind: 'postgres',
    async query<T>(sql: string, params: unknown[] = [], options?: QueryOptions) {
      try {
        const result = await pool.query(pgQuery(sql, params, options));
        return { rows: result.rows as T[] };
      } catch (error) {
        throw translated(error);
      }
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw translated(error);
      }
      let broken = false;
      // A checked-out client has no listener of the pool: a connection lost between two statements (database
      // crash or restart) emits 'error' on it, which would end the process. Noted here; the next statement
      // then fails and the transaction is answered as unavailable.
      const onLost = () => {
        broken = true;
      };
      client.on('error', onLost);
      try {
        await client.query('BEGIN');
        const result = await fn({
          async query<R>(sql: string, params: unknown[] = [], queryOptions?: QueryOptions) {
            const reply = await client.query(pgQuery(sql, params, queryOptions));
            return { rows: reply.rows as R[] };
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        broken ||= isUnavailable(error);
        if (!broken) await client.query('ROLLBACK').catch(() => undefined);
        throw broken ? databaseUnavailable(error) : error;
      } finally {
        client.off('error', onLost);
        client.release(broken);
      }
    },
    async close() {
      await pool.end();
    },
  };
}

export interface OpenDatabaseOptions {
  /** postgres://... for a PostgreSQL server; absent for the embedded database. */
  url?: string;
  /** Folder of the embedded database (created when missing). */
  dataDir: string;
  /**
   * A command that runs a few statements and closes (members, webhooks, keys, campaigns). On the embedded database
   * it gathers no planner statistics (its handful of statements gain nothing from them; the next provider's open
   * gathers them) and walks the data folder's ~1,200 files once, at the close, not at the open too: the open
   * narrows the folder itself, which alone shuts others out while the command runs.
   */
  oneShot?: boolean;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  let db: Database;
  if (options.url) {
    if (!/^postgres(ql)?:\/\//.test(options.url)) {
      throw new Error(`database URL must start with postgres:// or postgresql:// (got "${options.url.split(':')[0]}:...")`);
    }
    // Loaded here, not at module load: a caller that only builds sites (`import 'push-kit'`) never pays for them.
    const { default: pgClient } = await import('pg');
    const pool = new pgClient.Pool({ connectionString: options.url, max: 20, connectionTimeoutMillis: 5000 });
    // An idle client losing its connection (database restart) must not crash the process.
    pool.on('error', () => undefined);
    db = server(pool);
  } else {
    // (the mode applies to every folder this creates, the state folder included)
    await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
    const unlock = await lockEmbeddedDatabase(options.dataDir);
    try {
      setWasmTieringBudget();
      const { PGlite: EmbeddedPostgres } = await import('@electric-sql/pglite');
      const startParams = embeddedStartParams(EmbeddedPostgres);
      await initialiseEmbeddedDatabase(options.dataDir, startParams);
      db = embedded(await EmbeddedPostgres.create(options.dataDir, { startParams }), options.dataDir, unlock);
    } catch (error) {
      await unlock();
      throw error;
    }
  }
  try {
    await migrate(db);
    if (db.kind === 'embedded') {
      if (!options.oneShot) await analyzeGrownTables(db);
      // Only one process at a time opens the embedded database: a claim found here is of a process that is
      // gone (killed, crashed), so its deliveries are sent by the next runner now, not after the lease.
      // (read first: the UPDATE opens the table's indexes and triggers, ~0.1-0.2 s of a start, for rows seldom there)
      const claimed = await db.query(`SELECT 1 FROM deliveries WHERE status = 'pending' AND claimed_at IS NOT NULL LIMIT 1`);
      if (claimed.rows.length > 0) {
        await db.query(`UPDATE deliveries SET claimed_at = NULL WHERE status = 'pending' AND claimed_at IS NOT NULL`);
      }
      // files of a database made before its modes were narrowed, and those PostgreSQL wrote while starting
      if (options.oneShot) await makeFolderPrivate(options.dataDir);
      else await makePrivate(options.dataDir);
    }
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  return db;
}
