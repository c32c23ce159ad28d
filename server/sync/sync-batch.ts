// The sync actions of concurrent browsers as one statement (pushkit_sync_batch, migration 41). Under load most of a
// sync's cost was per statement, on both sides: PostgreSQL's parse, bind, snapshot and commit, the pg driver's
// query, socket write and reply parsing (bench/README.md, sync endpoint). Here the actions that arrive while a batch
// runs wait for it and then go together: one statement, one commit, one round trip for all of them; a lone action
// goes at once (in the next turn of the event loop), so an idle provider answers as fast as before.
// Each action gets its own answer (a row per action). A batch whose statement fails has written nothing; it is then
// run once more with each action in its own subtransaction (pushkit_sync_batch_isolated, migration 42), and only the
// actions the database refused there run alone, for their own error: one refused action costs three statements, not
// one per action of its batch (65 for 64, which anyone able to mint a subscriber could cause). A database that
// cannot be reached fails every action of the batch, as it would have failed each of them.
import type { Database, Queryable } from '../db/database.ts';
import { isServerError } from '../errors.ts';

/** One action of pushkit_sync_batch (migrations 41, 51): an insert, update or http-sync; absent: NULL. */
export interface BatchAction {
  action: 'insert' | 'update' | 'http-sync';
  site: string;
  lock?: string;
  subscriber_id?: string;
  secret_hash?: string;
  new_id?: string;
  new_secret_hash?: string;
  endpoint?: string;
  subscription_id?: string;
  subscription?: unknown;
  p256dh?: string;
  auth?: string;
  vapid_key_id?: string;
  browser_type?: string;
  language?: string;
  timezone?: string;
  timezone_offset?: number;
  click?: number;
  origin?: string;
  page_url?: string;
  uuid?: string;
}

/** pushkit_sync_batch's answer to one action; 'fallback': an http-sync the function did not decide. */
export interface BatchRow {
  result_code: string;
  result_id: string | null;
  result_issued: boolean;
  result_welcome: boolean | null;
}

const BATCH_SQL = 'SELECT i, result_code, result_id, result_issued, result_welcome FROM pushkit_sync_batch($1::text::jsonb)';
const ISOLATED_SQL = 'SELECT i, result_code, result_id, result_issued, result_welcome FROM pushkit_sync_batch_isolated($1::text::jsonb)';
/** The isolated batch's answer to an action the database refused (its writes undone). */
const REFUSED = 'refused';
/** Actions per statement at most: on the embedded database a statement holds the event loop while it runs. */
export const BATCH_MAX = 64;

interface Waiting {
  action: BatchAction;
  resolve: (row: BatchRow) => void;
  reject: (error: unknown) => void;
}

/** Runs `actions` as one statement on `db` (also inside a transaction): their rows in the order of `actions`. */
export async function runBatch(db: Queryable, actions: BatchAction[], sql = BATCH_SQL): Promise<BatchRow[]> {
  // Each action's JSON with its index `i` put first, not a copy of each action with `i` added (its 20 fields cloned
  // for every action: 1-2 µs of the provider's CPU per sync). An action's JSON always has a field (action, site).
  let items = '[';
  for (let i = 0; i < actions.length; i += 1) items += `${i === 0 ? '' : ','}{"i":${i},${JSON.stringify(actions[i]).slice(1)}`;
  items += ']';
  const { rows } = await db.query<BatchRow & { i: number }>(sql, [items], { prepare: true });
  const byIndex: BatchRow[] = [];
  for (const row of rows) byIndex[row.i] = row;
  return actions.map((_, i) => {
    const row = byIndex[i];
    // the function answers every action: without a row nothing says the action was stored
    if (!row) throw new Error(`pushkit_sync_batch answered no row for action ${i}`);
    return row;
  });
}

/**
 * Batches in flight at most per database. Two on PostgreSQL: while the provider writes the answers of one batch, the
 * database runs the next (with one, each waited for the other). Their advisory locks are taken in one order, as
 * those of two processes' batches are. One on the embedded database, which runs one statement at a time.
 */
const IN_FLIGHT = 2;

/**
 * Actions that go at once on PostgreSQL when a batch is free, without waiting for the end of the event loop's turn.
 * A batch's replies are written together, so the browsers' next requests come together too: with 50 connections all
 * 50 were parsed in one turn and went as one batch, the database idle while they were parsed and the provider idle
 * while they ran (never two batches in flight, none half the time). The first eight now run while the rest are
 * parsed, and the rest go in the other batch.
 */
const BATCH_EARLY = 8;

/** The batches of one database: at most IN_FLIGHT in flight; what arrives meanwhile goes in the next. */
export class SyncBatcher {
  private waiting: Waiting[] = [];
  private running = 0;
  private scheduled = false;
  private readonly inFlight: number;
  private readonly early: number;

  constructor(private readonly db: Database) {
    this.inFlight = db.kind === 'postgres' ? IN_FLIGHT : 1;
    // the embedded database runs a statement on this thread: nothing to overlap, fewer statements are better
    this.early = db.kind === 'postgres' ? BATCH_EARLY : BATCH_MAX;
  }

  /** (a property, not a method: the sync passes it on without a closure made per request) */
  readonly run = (action: BatchAction): Promise<BatchRow> =>
    new Promise<BatchRow>((resolve, reject) => {
      this.waiting.push({ action, resolve, reject });
      if (this.running < this.inFlight && this.waiting.length >= this.early) {
        this.flush();
        return;
      }
      if (this.running < this.inFlight && !this.scheduled) {
        // the next turn: the requests parsed in this one go together
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });

  private flush(): void {
    while (this.running < this.inFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, BATCH_MAX);
      this.running += 1;
      void this.settle(batch).finally(() => {
        this.running -= 1;
        this.flush();
      });
    }
  }

  private async settle(batch: Waiting[]): Promise<void> {
    let rows: BatchRow[];
    try {
      rows = await runBatch(
        this.db,
        batch.map((waiting) => waiting.action),
      );
    } catch (error) {
      if (batch.length === 1 || isServerError(error, 'E_DATABASE_UNAVAILABLE')) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      // nothing of the batch was written: once more, each action isolated; the refused ones alone (the next batch waits)
      let isolated: BatchRow[] | undefined;
      try {
        isolated = await runBatch(
          this.db,
          batch.map((waiting) => waiting.action),
          ISOLATED_SQL,
        );
      } catch (again) {
        if (isServerError(again, 'E_DATABASE_UNAVAILABLE')) {
          for (const waiting of batch) waiting.reject(again);
          return;
        }
      }
      await Promise.all(
        batch.map((waiting, index) => {
          const row = isolated?.[index];
          if (row && row.result_code !== REFUSED) return waiting.resolve(row);
          return runBatch(this.db, [waiting.action]).then(
            ([alone]) => waiting.resolve(alone!),
            (error: unknown) => waiting.reject(error),
          );
        }),
      );
      return;
    }
    batch.forEach((waiting, index) => waiting.resolve(rows[index]!));
  }
}

/**
 * At a provider's start on PostgreSQL: a connection per batch in flight and one more opened, each with the batch's
 * statement prepared and the function compiled (an empty batch and an http-sync that finds no one, which writes
 * nothing), so that the first burst of syncs does not wait for connections, parsing and planning.
 */
export async function warmSyncBatches(db: Database): Promise<void> {
  if (db.kind !== 'postgres') return;
  const nobody: BatchAction = { action: 'http-sync', site: '', subscriber_id: '', secret_hash: '' };
  await Promise.all(Array.from({ length: IN_FLIGHT + 1 }, () => runBatch(db, [nobody]).catch(() => undefined)));
}

const batchers = new WeakMap<Database, SyncBatcher>();

/** The batcher of `db` (one per database a provider opened). */
export function syncBatcher(db: Database): SyncBatcher {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = new SyncBatcher(db);
    batchers.set(db, batcher);
  }
  return batcher;
}
