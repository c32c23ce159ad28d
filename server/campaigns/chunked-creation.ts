// A campaign to a large audience is written in chunks: createCampaign's transaction writes the campaign and the
// first chunk of delivery rows (50,000) (its audience in subscriber id order) and marks it `creating`; each further
// chunk is one statement of its own, a range of subscriber ids, two at a time on PostgreSQL; the mark goes when the
// last chunk is in. The scheduler and a provider's start leave a campaign that is being created alone, so no
// transaction spans a million rows and nothing is sent before the audience is complete. A/B tests and local-time
// campaigns, whose split and due times are set over all their rows, are still written in one transaction. A provider
// that stopped mid-creation finishes writing it at its next start (resumeCreation), and it goes.
import type { Database, Queryable } from '../db/database.ts';
import type { CampaignInput } from '../../contract/campaign-input.ts';
import { audienceQuery } from './audience.ts';

/** Delivery rows per chunk: about 1 s of writing on a small machine (PUSHKIT_CREATION_CHUNK sets another). */
export function creationChunk(): number {
  const chosen = Number(process.env.PUSHKIT_CREATION_CHUNK);
  return Number.isInteger(chosen) && chosen > 0 ? chosen : 50_000;
}

/** Whether this campaign's rows may be written in chunks (nothing is set over all of them afterwards). */
export function writtenInChunks(input: CampaignInput): boolean {
  return !input.variants && input.localTime === undefined && (input as { deliverAt?: unknown }).deliverAt === undefined;
}

/** The SQL appended to the audience query of the first chunk, inside createCampaign's transaction. */
export function firstChunkSql(input: CampaignInput): string {
  return writtenInChunks(input) ? ` ORDER BY s.id LIMIT ${creationChunk()}` : '';
}

/** What createCampaign's transaction leaves to write: the audience's SQL, its placeholders numbered from $2. */
export interface RemainingChunks {
  campaignId: string;
  audience: { sql: string; params: unknown[] };
  /** When the deliveries are due (ISO): the campaign's sendAt, else its creation. */
  due: string;
}

/**
 * How many chunks are written at once: two on PostgreSQL (PUSHKIT_CREATION_LANES sets another), where each is a
 * backend of its own and the insert is CPU-bound in it: one chunk at a time left the machine's second core idle for
 * the whole creation (22 s of a million's 338 s, bench/README.md). One on the embedded database, whose statements
 * take turns on the process's one thread anyway.
 */
export function creationLanes(db: Queryable): number {
  if (!('kind' in db) || (db as Database).kind !== 'postgres') return 1;
  const chosen = Number(process.env.PUSHKIT_CREATION_LANES);
  return Number.isInteger(chosen) && chosen > 0 ? Math.min(chosen, 8) : 2;
}

/**
 * Writes the audience's rows after subscriber id `after`, a chunk per statement, then clears the campaign's
 * `creating` mark; resolves with the rows written. Chunks are ranges of the audience in subscriber id order: the
 * next range's end is read (an index walk of a chunk's ids) before its rows are written, so `creationLanes` ranges
 * are written at once, each by its own statement. A chunk written twice (a resumed creation) adds nothing:
 * (campaign, subscriber) is unique.
 */
export async function writeRemainingChunks(db: Queryable, rest: RemainingChunks, after?: string): Promise<number> {
  const { campaignId, audience } = rest;
  const cursorParam = audience.params.length + 2;
  let last = after;
  if (last === undefined) {
    const { rows: start } = await db.query<{ last: string | null }>(
      'SELECT max(subscriber_id) AS last FROM deliveries WHERE campaign_id = $1',
      [campaignId],
    );
    last = start[0]?.last ?? '';
  }
  const chunk = creationChunk();
  let done = false;
  let ranges = Promise.resolve<{ after: string; upTo: string | null } | undefined>(undefined);
  // the next range to write, one at a time: from the end of the last one to the id `chunk` audience rows further on
  // (null: the audience's rest)
  const nextRange = (): Promise<{ after: string; upTo: string | null } | undefined> =>
    (ranges = ranges.then(async () => {
      if (done) return undefined;
      const from = last!;
      const { rows } = await db.query<{ id: string }>(
        // $1 (the campaign) is not read here, but the audience's placeholders are numbered after it
        `SELECT range.id FROM (${audience.sql} AND s.id > $${cursorParam} ORDER BY s.id OFFSET ${chunk - 1} LIMIT 1) range
         WHERE $1::bigint IS NOT NULL`,
        [campaignId, ...audience.params, from],
      );
      const upTo = rows[0]?.id ?? null;
      if (upTo === null) done = true;
      else last = upTo;
      return { after: from, upTo };
    }));
  let written = 0;
  const lane = async (): Promise<void> => {
    for (let range = await nextRange(); range; range = await nextRange()) {
      const { rows } = await db.query<{ written: number }>(
        // the campaign share-locked for the chunk, as its foreign key did per row (migration 54): deleted meanwhile, no rows
        `WITH inserted AS (
           INSERT INTO deliveries (campaign_id, subscriber_id, next_attempt_at)
           SELECT campaign.id, chunk.id, $${cursorParam + 1}::timestamptz
           FROM (SELECT id FROM campaigns WHERE id = $1 FOR KEY SHARE) campaign,
             (${audience.sql} AND s.id > $${cursorParam} AND ($${cursorParam + 2}::text IS NULL OR s.id <= $${cursorParam + 2})) chunk
           ON CONFLICT (campaign_id, subscriber_id) DO NOTHING RETURNING 1
         )
         SELECT count(*)::int AS written FROM inserted`,
        [campaignId, ...audience.params, range.after, rest.due, range.upTo],
      );
      written += rows[0]!.written;
    }
  };
  // every lane ends before the mark goes or an error is answered (a lane that failed stops the others after their chunk)
  const lanes = await Promise.allSettled(
    Array.from({ length: creationLanes(db) }, () =>
      lane().catch((error: unknown) => {
        done = true;
        throw error;
      }),
    ),
  );
  const failed = lanes.find((result) => result.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  await db.query('UPDATE campaigns SET creating = false WHERE id = $1', [campaignId]);
  return written;
}

/**
 * Finishes the campaigns a stopped provider left being created: their audience (everyone, a segment, an audience
 * rule or one subscriber, as stored) after the last subscriber written, due when their first rows were. One
 * whose audience is gone goes to the rows it has. Resolves with the campaigns finished.
 */
export async function resumeCreation(db: Queryable, log: (line: string) => void = () => undefined): Promise<string[]> {
  const { rows } = await db.query<{
    id: string;
    site_hash: string;
    segment_sid: string | null;
    subscriber_id: string | null;
    audience_id: string | null;
    due: Date | null;
  }>(
    `SELECT c.id, c.site_hash, c.segment_sid, c.subscriber_id, c.audience_id,
       coalesce((SELECT min(d.next_attempt_at) FROM deliveries d WHERE d.campaign_id = c.id), c.send_at, c.created_at) AS due
     FROM campaigns c WHERE c.creating ORDER BY c.id`,
  );
  const finished: string[] = [];
  for (const row of rows) {
    const campaignId = String(row.id);
    try {
      const audience = await audienceQuery(
        db,
        row.site_hash,
        { segment: row.segment_sid ?? undefined, subscriberId: row.subscriber_id ?? undefined, audience: row.audience_id ?? undefined },
        2,
      );
      // from the start: chunks were written side by side, so rows after a gap may be in; those written add nothing
      await writeRemainingChunks(db, { campaignId, audience, due: new Date(row.due ?? Date.now()).toISOString() }, '');
    } catch (error) {
      log(`campaign ${campaignId}: its audience could not be read again (${(error as Error).message}); it goes to those written`);
      await db.query('UPDATE campaigns SET creating = false WHERE id = $1', [campaignId]);
    }
    finished.push(campaignId);
  }
  return finished;
}
