// The feeds table and the items each feed has seen (migration 22).
import type { Queryable } from '../db/database.ts';
import type { Feed, FeedInput, FeedMode } from '../../contract/feeds.ts';
import { isoTime, isoTimeOrNull } from '../db/iso-time.ts';

export interface FeedRow {
  site_hash: string;
  id: string;
  url: string;
  segment: string | null;
  interval_minutes: number;
  mode: FeedMode;
  etag: string | null;
  last_modified: string | null;
  primed: boolean;
  next_poll_at: Date | string;
  last_polled_at: Date | string | null;
  last_success_at: Date | string | null;
  last_error: string | null;
  last_error_at: Date | string | null;
  created_at: Date | string;
  /** Listed in the site config (config-feeds.ts): the owner API cannot remove it. */
  from_config?: boolean;
  items_seen?: string | number;
  items_sent?: string | number;
}

export function feedOf(row: FeedRow): Feed {
  return {
    feedId: String(row.id),
    url: row.url,
    segment: row.segment,
    intervalMinutes: row.interval_minutes,
    mode: row.mode,
    lastPolledAt: isoTimeOrNull(row.last_polled_at),
    lastSuccessAt: isoTimeOrNull(row.last_success_at),
    lastError: row.last_error,
    lastErrorAt: isoTimeOrNull(row.last_error_at),
    nextPollAt: isoTime(row.next_poll_at),
    itemsSeen: Number(row.items_seen ?? 0),
    itemsSent: Number(row.items_sent ?? 0),
    createdAt: isoTime(row.created_at),
    fromConfig: row.from_config === true,
  };
}

const WITH_COUNTS = `SELECT f.*,
    (SELECT count(*) FROM feed_items i WHERE i.site_hash = f.site_hash AND i.feed_id = f.id) AS items_seen,
    (SELECT count(*) FROM feed_items i WHERE i.site_hash = f.site_hash AND i.feed_id = f.id AND i.campaign_id IS NOT NULL) AS items_sent
  FROM feeds f`;

export async function listFeeds(db: Queryable, siteHash: string): Promise<FeedRow[]> {
  return (await db.query<FeedRow>(`${WITH_COUNTS} WHERE f.site_hash = $1 ORDER BY f.id`, [siteHash])).rows;
}

export async function getFeed(db: Queryable, siteHash: string, id: string): Promise<FeedRow | undefined> {
  return (await db.query<FeedRow>(`${WITH_COUNTS} WHERE f.site_hash = $1 AND f.id = $2`, [siteHash, id])).rows[0];
}

export async function countFeeds(db: Queryable, siteHash: string): Promise<number> {
  return Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM feeds WHERE site_hash = $1', [siteHash])).rows[0]?.n ?? 0);
}

/** Adds a feed, due at once (its first poll only records what it already has). */
export async function insertFeed(db: Queryable, siteHash: string, url: string, input: FeedInput, now: number): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO feeds (site_hash, url, segment, interval_minutes, mode, next_poll_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [siteHash, url, input.segment ?? null, input.intervalMinutes, input.mode, new Date(now)],
  );
  return String(rows[0]!.id);
}

/** Removes a feed and its items; false when there was none. */
export async function deleteFeed(db: Queryable, siteHash: string, id: string): Promise<boolean> {
  const { rows } = await db.query('DELETE FROM feeds WHERE site_hash = $1 AND id = $2 RETURNING id', [siteHash, id]);
  await db.query('DELETE FROM feed_items WHERE site_hash = $1 AND feed_id = $2', [siteHash, id]);
  return rows.length > 0;
}

/**
 * Claims the feeds of these sites due at `now`: each one's next poll moves an interval on at once, so that another
 * provider on the same database (`--workers`, several machines) does not fetch it too; settlePoll sets it again.
 */
export async function claimDueFeeds(db: Queryable, siteHashes: string[], now: number): Promise<FeedRow[]> {
  const { rows } = await db.query<FeedRow>(
    `UPDATE feeds SET next_poll_at = $2::timestamptz + interval_minutes * interval '1 minute'
      WHERE site_hash = ANY($1) AND next_poll_at <= $2 RETURNING *`,
    [siteHashes, new Date(now)],
  );
  return rows.sort((a, b) => Number(a.id) - Number(b.id));
}

/** Records the items' keys; resolves with the keys not seen before (in the order given). */
export async function recordItems(db: Queryable, feed: FeedRow, keys: string[], now: number): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { rows } = await db.query<{ item_key: string }>(
    `INSERT INTO feed_items (site_hash, feed_id, item_key, seen_at) SELECT $1, $2, key, $4 FROM unnest($3::text[]) AS key
      ON CONFLICT DO NOTHING RETURNING item_key`,
    [feed.site_hash, feed.id, keys, new Date(now)],
  );
  return new Set(rows.map((row) => row.item_key));
}

export async function markSent(db: Queryable, feed: FeedRow, keys: string[], campaignId: string): Promise<void> {
  await db.query('UPDATE feed_items SET campaign_id = $4 WHERE site_hash = $1 AND feed_id = $2 AND item_key = ANY($3)', [
    feed.site_hash,
    feed.id,
    keys,
    campaignId,
  ]);
}

export interface PollOutcome {
  now: number;
  error?: string;
  etag?: string | null;
  lastModified?: string | null;
}

/** After a poll: next one an interval later; on success the validators and primed, on failure the error kept. */
export async function settlePoll(db: Queryable, feed: FeedRow, outcome: PollOutcome): Promise<void> {
  const now = new Date(outcome.now);
  const next = new Date(outcome.now + feed.interval_minutes * 60_000);
  if (outcome.error !== undefined) {
    await db.query(
      `UPDATE feeds SET last_polled_at = $3, next_poll_at = $4, last_error = $5, last_error_at = $3 WHERE site_hash = $1 AND id = $2`,
      [feed.site_hash, feed.id, now, next, outcome.error.slice(0, 500)],
    );
    return;
  }
  await db.query(
    `UPDATE feeds SET last_polled_at = $3, next_poll_at = $4, last_success_at = $3, last_error = NULL, last_error_at = NULL, primed = true,
      etag = CASE WHEN $5::boolean THEN $6 ELSE etag END, last_modified = CASE WHEN $5::boolean THEN $7 ELSE last_modified END
      WHERE site_hash = $1 AND id = $2`,
    [feed.site_hash, feed.id, now, next, outcome.etag !== undefined, outcome.etag ?? null, outcome.lastModified ?? null],
  );
}
