// A campaign to a large audience is written in chunks: createCampaign's transaction writes the campaign and the
// first chunk of delivery rows (50,000) (its audience in subscriber id order) and marks it `creating`; each further
// chunk is one statement of its own, from the last subscriber id written; the mark goes when the last chunk is
// in. The scheduler and a provider's start leave a campaign that is being created alone, so no transaction spans
// a million rows and nothing is sent before the audience is complete. A/B tests and local-time campaigns, whose
// split and due times are set over all their rows, are still written in one transaction. A provider that stopped
// mid-creation finishes writing it at its next start (resumeCreation), from where it was, and it goes.
import type { Queryable } from '../db/database.ts';
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
 * Writes the audience's rows after the last subscriber id written, a chunk per statement, then clears the
 * campaign's `creating` mark; resolves with the rows written. A chunk written twice (a resumed creation) adds
 * nothing: (campaign, subscriber) is unique.
 */
export async function writeRemainingChunks(db: Queryable, rest: RemainingChunks): Promise<number> {
  const { campaignId, audience } = rest;
  const cursorParam = audience.params.length + 2;
  const { rows: start } = await db.query<{ last: string | null }>(
    'SELECT max(subscriber_id) AS last FROM deliveries WHERE campaign_id = $1',
    [campaignId],
  );
  let last = start[0]?.last ?? '';
  let written = 0;
  const chunk = creationChunk();
  for (;;) {
    const { rows } = await db.query<{ seen: number; last: string | null; written: number }>(
      `WITH chunk AS (${audience.sql} AND s.id > $${cursorParam} ORDER BY s.id LIMIT ${chunk}),
       inserted AS (
         INSERT INTO deliveries (campaign_id, subscriber_id, next_attempt_at)
         SELECT $1, chunk.id, $${cursorParam + 1}::timestamptz FROM chunk
         ON CONFLICT (campaign_id, subscriber_id) DO NOTHING RETURNING 1
       )
       SELECT (SELECT count(*)::int FROM chunk) AS seen, (SELECT max(id) FROM chunk) AS last,
         (SELECT count(*)::int FROM inserted) AS written`,
      [campaignId, ...audience.params, last, rest.due],
    );
    const row = rows[0]!;
    written += row.written;
    if (row.seen < chunk || row.last === null) break;
    last = row.last;
  }
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
      await writeRemainingChunks(db, { campaignId, audience, due: new Date(row.due ?? Date.now()).toISOString() });
    } catch (error) {
      log(`campaign ${campaignId}: its audience could not be read again (${(error as Error).message}); it goes to those written`);
      await db.query('UPDATE campaigns SET creating = false WHERE id = $1', [campaignId]);
    }
    finished.push(campaignId);
  }
  return finished;
}
