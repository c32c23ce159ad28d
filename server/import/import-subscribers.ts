// The import use case (`push-kit import`, POST sites/:name/imports, the dashboard's Import screen): reads a file
// as a stream, checks each row as the sync call checks an insert, and stores the good rows in batches, each one
// transaction (a batch is stored whole or not at all, never half a row). A subscriber is known by its endpoint:
// a row whose endpoint the site already has changes nothing, so running the same file again imports nothing
// new, and a run stopped half-way (a crash, a lost connection) is finished by running it again.
//
// Imported subscribers are ordinary rows of `subscribers`: no secret yet (the browser gets one at its next
// sync that proves the subscription, as for subscribers stored before secrets existed), the subscription id the
// runtime derives from the endpoint (so the silent move to the site's key finds them), tags and segment
// memberships as the visitor calls store them. No welcome message is scheduled: they subscribed long ago.
import { randomBytes } from 'node:crypto';
import type { Database, Queryable } from '../db/database.ts';
import type { PushServiceAllowlist } from '../push/push-services.ts';
import { ensureSegment } from '../segments/index.ts';
import {
  IMPORT_NEW_SEGMENTS_MAX,
  IMPORT_PROBLEMS_SHOWN,
  type ImportFormatChoice,
  type ImportProblem,
  type ImportReport,
} from '../../contract/imports.ts';
import { openImportFile } from './import-formats.ts';
import { rowProblem } from './import-problems.ts';
import { checkRow, type ImportRow } from './import-rows.ts';

/** Rows per transaction: large enough that a million rows are few round trips, small enough to retry cheaply. */
export const IMPORT_BATCH_ROWS = 2000;
/** Batches written at once on PostgreSQL (each its own connection of the pool). */
export const IMPORT_WRITERS = 2;

export interface ImportProgress {
  bytes: number;
  rows: number;
  imported: number;
  existing: number;
  rekeyed: number;
  invalid: number;
}

export interface ImportOptions {
  /** The site the subscribers join. */
  site: { hash: string; name: string };
  format?: ImportFormatChoice;
  /** Check and count only: nothing is written. */
  dryRun?: boolean;
  /** The push services an endpoint may be on (the sync call's list). */
  pushServices: PushServiceAllowlist;
  /**
   * The id on the site's key ring (server/keys/) of the key the imported subscriptions were made with, written to
   * each new row's vapid_key_id; null: the site's current key.
   */
  vapidKeyId?: string | null;
  batchRows?: number;
  /** Called after each batch (and once at the end). */
  onProgress?(progress: ImportProgress): void;
  now?(): number;
}

interface Batch {
  rows: ImportRow[];
  /** Endpoints of this batch: a later row of the file with the same endpoint is the same subscriber. */
  endpoints: Set<string>;
}

const newBatch = (): Batch => ({ rows: [], endpoints: new Set() });

/**
 * A UUID of version 7 (RFC 9562): 48 bits of the time in milliseconds, then 74 random bits. Imported subscribers
 * get these instead of the sync call's random ones so that a million new ids go to the right end of the primary
 * key and of the campaigns' (site, id) index instead of all over them: at a million rows, random ids made every
 * insert touch pages out of the cache. Nothing reads an order or a time from an id.
 */
function timeOrderedId(now: number): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

async function siteSegments(db: Queryable, siteHash: string): Promise<Map<string, string>> {
  const { rows } = await db.query<{ sid: string; id: string }>('SELECT sid, id FROM segments WHERE site_hash = $1', [siteHash]);
  return new Map(rows.map((row) => [row.sid, String(row.id)]));
}

/** Endpoints of `endpoints` the site already has, with the key id each one is signed with. */
async function knownEndpoints(db: Queryable, siteHash: string, endpoints: string[]): Promise<Map<string, string | null>> {
  const { rows } = await db.query<{ endpoint: string; vapid_key_id: string | null }>(
    'SELECT endpoint, vapid_key_id FROM subscribers WHERE site_hash = $1 AND endpoint = ANY($2::text[])',
    [siteHash, endpoints],
  );
  return new Map(rows.map((row) => [row.endpoint, row.vapid_key_id]));
}

/**
 * Stores one batch in one transaction and returns how many subscribers it added, and how many it moved to the
 * file's key. Each endpoint is locked as the sync call locks it, in one order, so a browser's insert of the
 * same subscription waits for the batch. A subscriber the site has is left as it is, but for its key when the
 * import names one: a subscription is bound to the key that made it, so a file imported again with its
 * `--vapid-key` (forgotten the first time) sets the key the pushes must be signed with.
 */
async function storeBatch(
  db: Database,
  siteHash: string,
  rows: ImportRow[],
  segments: Map<string, string>,
  vapidKeyId: string | null,
): Promise<{ added: number; rekeyed: number; created: Map<string, string> }> {
  const sorted = [...rows].sort((a, b) => (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0));
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1 || ' ' || e)) FROM unnest($2::text[]) WITH ORDINALITY AS t(e, n) ORDER BY n`, [
      siteHash,
      sorted.map((row) => row.endpoint),
    ]);
    const created = new Map<string, string>();
    for (const sid of new Set(sorted.flatMap((row) => row.segments))) {
      if (!segments.has(sid)) created.set(sid, await ensureSegment(tx, siteHash, sid));
    }
    const now = Date.now();
    const ids = sorted.map(() => timeOrderedId(now));
    const column = <T>(pick: (row: ImportRow) => T) => sorted.map(pick);
    const { rows: stored } = await tx.query<{ id: string; inserted: boolean }>(
      `INSERT INTO subscribers (id, site_hash, status, subscription, subscription_id, endpoint, p256dh, auth, browser_type,
                                language, timezone, created_at, updated_at, external_id, vapid_key_id)
       SELECT t.id, $1, t.status,
              jsonb_build_object('endpoint', t.endpoint, 'expirationTime', t.expiration, 'keys', jsonb_build_object('p256dh', t.p256dh, 'auth', t.auth)),
              t.subscription_id, t.endpoint, t.p256dh, t.auth, t.browser_type, t.language, t.timezone,
              COALESCE(t.created_at, now()), now(), t.external_id, $14
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::text[], $9::text[],
                     $10::text[], $11::text[], $12::timestamptz[], $13::text[])
           AS t(id, status, endpoint, p256dh, auth, expiration, subscription_id, browser_type, language, timezone, created_at, external_id)
       ON CONFLICT (site_hash, endpoint) WHERE endpoint IS NOT NULL DO ${
         vapidKeyId
           ? `UPDATE SET vapid_key_id = EXCLUDED.vapid_key_id, updated_at = now()
                WHERE subscribers.vapid_key_id IS DISTINCT FROM EXCLUDED.vapid_key_id`
           : 'NOTHING'
       }
       RETURNING id, (xmax = 0) AS inserted`,
      [
        siteHash,
        ids,
        column((row) => row.status),
        column((row) => row.endpoint),
        column((row) => row.p256dh),
        column((row) => row.auth),
        column((row) => row.expirationTime),
        column((row) => row.subscriptionId),
        column((row) => row.browserType),
        column((row) => row.language),
        column((row) => row.timezone),
        column((row) => row.createdAt),
        column((row) => row.externalId),
        vapidKeyId,
      ],
    );
    const added = new Set(stored.filter((row) => row.inserted).map((row) => row.id));
    const tagIds: string[] = [];
    const tagKeys: string[] = [];
    const tagValues: string[] = [];
    const memberIds: string[] = [];
    const memberSegments: string[] = [];
    sorted.forEach((row, index) => {
      const id = ids[index]!;
      if (!added.has(id)) return;
      for (const [key, value] of row.tags) {
        tagIds.push(id);
        tagKeys.push(key);
        tagValues.push(value);
      }
      for (const sid of row.segments) {
        memberIds.push(id);
        memberSegments.push(segments.get(sid) ?? created.get(sid)!);
      }
    });
    if (tagIds.length > 0) {
      await tx.query('INSERT INTO subscriber_tags (subscriber_id, key, value) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])', [
        tagIds,
        tagKeys,
        tagValues,
      ]);
    }
    if (memberIds.length > 0) {
      await tx.query(
        `INSERT INTO segment_memberships (segment_id, subscriber_id, source)
         SELECT s, i, 'import' FROM unnest($1::bigint[], $2::text[]) AS t(s, i)`,
        [memberSegments, memberIds],
      );
    }
    return { added: added.size, rekeyed: stored.length - added.size, created };
  });
}

/**
 * Imports the subscribers of a file into a site. Throws E_IMPORT_FORMAT (nothing written) when the file's
 * format cannot be told or its header lacks a required column; a database failure part-way leaves the batches
 * stored before it, and running the file again finishes the import.
 */
export async function importSubscribers(
  db: Database,
  input: AsyncIterable<Buffer | string>,
  options: ImportOptions,
): Promise<ImportReport> {
  const started = Date.now();
  const now = options.now ?? Date.now;
  const dryRun = options.dryRun === true;
  const batchRows = options.batchRows ?? IMPORT_BATCH_ROWS;
  // the embedded database runs one statement at a time anyway
  const writers = db.kind === 'postgres' ? IMPORT_WRITERS : 1;
  const vapidKeyId = options.vapidKeyId ?? null;
  const siteHash = options.site.hash;
  let bytes = 0;
  const file = await openImportFile(input, options.format ?? 'auto', (count) => {
    bytes += count;
  });
  const segments = await siteSegments(db, siteHash);
  /** New segments rows name: created with the first batch that stores a member. */
  const newSegments = new Set<string>();
  const segmentsCreated: string[] = [];
  const problems: ImportProblem[] = [];
  const counts = { rows: 0, imported: 0, existing: 0, rekeyed: 0, invalid: 0 };
  const progress = () => options.onProgress?.({ bytes, ...counts });

  const refuse = (line: number, problem: { code: string; reason: string }) => {
    counts.invalid += 1;
    if (problems.length < IMPORT_PROBLEMS_SHOWN) problems.push({ line, ...problem });
  };

  const flush = async (batch: Batch) => {
    if (batch.rows.length === 0) return;
    if (dryRun) {
      const known = await knownEndpoints(db, siteHash, [...batch.endpoints]);
      for (const row of batch.rows) {
        if (!known.has(row.endpoint)) counts.imported += 1;
        else {
          counts.existing += 1;
          if (vapidKeyId && known.get(row.endpoint) !== vapidKeyId) counts.rekeyed += 1;
        }
      }
    } else {
      const { added, rekeyed, created } = await storeBatch(db, siteHash, batch.rows, segments, vapidKeyId);
      for (const [sid, id] of created) {
        // two batches naming a new segment both report it: the second found the first's
        if (!segments.has(sid)) segmentsCreated.push(sid);
        segments.set(sid, id);
      }
      counts.imported += added;
      counts.rekeyed += rekeyed;
      counts.existing += batch.rows.length - added;
    }
    progress();
  };

  let batch = newBatch();
  // Batches are written by IMPORT_WRITERS transactions at once while the next is read and checked. Each
  // locks and inserts its endpoints in sorted order, so two batches holding one endpoint (a file that repeats
  // it) wait for each other in one order and never deadlock.
  const writing = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  /** Throws the first failed batch's error once no other batch is being written (the caller then sees what is stored). */
  const stopOnFailure = async () => {
    if (!failure) return;
    await Promise.allSettled(writing);
    throw failure.error;
  };
  const write = async (full: Batch) => {
    while (writing.size >= writers) await Promise.race(writing);
    await stopOnFailure();
    const job: Promise<void> = flush(full).then(
      () => {
        writing.delete(job);
      },
      (error: unknown) => {
        writing.delete(job);
        failure ??= { error };
      },
    );
    writing.add(job);
  };
  try {
    for await (const sources of file.rows) {
      for (const source of sources) {
        counts.rows += 1;
        const checked = checkRow(source, options.pushServices, now());
        if (!checked.ok) {
          refuse(source.line, checked.problem);
          continue;
        }
        const { row } = checked;
        const unknown = row.segments.filter((sid) => !segments.has(sid) && !newSegments.has(sid));
        if (unknown.length > 0 && newSegments.size + unknown.length > IMPORT_NEW_SEGMENTS_MAX) {
          refuse(row.line, rowProblem('E_ROW_NEW_SEGMENTS'));
          continue;
        }
        for (const sid of unknown) newSegments.add(sid);
        if (batch.endpoints.has(row.endpoint)) {
          counts.existing += 1;
          continue;
        }
        batch.rows.push(row);
        batch.endpoints.add(row.endpoint);
        if (batch.rows.length >= batchRows) {
          const full = batch;
          batch = newBatch();
          await write(full);
        }
      }
    }
  } catch (error) {
    // the file could not be read on (a body past the limit, a lost upload): the batches being written finish first
    await Promise.allSettled(writing);
    throw error;
  }
  await write(batch);
  await Promise.allSettled(writing);
  await stopOnFailure();
  if (dryRun) segmentsCreated.push(...[...newSegments].filter((sid) => !segments.has(sid)));
  progress();
  return {
    format: file.format,
    dryRun,
    ...counts,
    problems,
    ignoredColumns: file.ignoredColumns,
    segmentsCreated: segmentsCreated.sort(),
    vapidKeyId,
    bytes,
    durationMs: Date.now() - started,
  };
}
