// Segments of a site and who is in them. A segment is known by its sid (spec section 3); one added by a
// visitor's browser (/as, c.gif) before the owner created it is created on the way, named after its sid.
import type { Queryable } from '../db/database.ts';
import type { Segment } from '../../contract/owner-api.ts';

/** A segment stored on the provider (one of the site config is listed by the owner API before it is stored). */
export type SegmentSummary = Omit<Segment, 'configCondition' | 'createdAt'> & { createdAt: string };

export async function ensureSegment(db: Queryable, siteHash: string, sid: string, name = sid): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO segments (site_hash, sid, name) VALUES ($1, $2, $3)
     ON CONFLICT (site_hash, sid) DO UPDATE SET sid = EXCLUDED.sid RETURNING id`,
    [siteHash, sid, name],
  );
  return String(rows[0]!.id);
}

export async function addMembership(
  db: Queryable,
  siteHash: string,
  sid: string,
  subscriberId: string,
  source: string,
  customTag?: string,
): Promise<void> {
  await addMembershipTo(db, await ensureSegment(db, siteHash, sid), subscriberId, source, customTag);
}

/** Adds the subscriber to the stored segment with this id (keeping a custom tag given before). */
export async function addMembershipTo(
  db: Queryable,
  segmentId: string,
  subscriberId: string,
  source: string,
  customTag?: string,
): Promise<void> {
  await db.query(
    `INSERT INTO segment_memberships (segment_id, subscriber_id, source, custom_tag) VALUES ($1, $2, $3, $4)
     ON CONFLICT (segment_id, subscriber_id) DO UPDATE SET custom_tag = COALESCE(EXCLUDED.custom_tag, segment_memberships.custom_tag)`,
    [segmentId, subscriberId, source, customTag ?? null],
  );
}

/** Removes the subscriber from the segment; false when they were not in it. */
export async function removeMembership(db: Queryable, siteHash: string, sid: string, subscriberId: string): Promise<boolean> {
  const { rows } = await db.query(
    `DELETE FROM segment_memberships WHERE subscriber_id = $2
       AND segment_id = (SELECT id FROM segments WHERE site_hash = $1 AND sid = $3) RETURNING segment_id`,
    [siteHash, subscriberId, sid],
  );
  return rows.length > 0;
}

export async function segmentExists(db: Queryable, siteHash: string, sid: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM segments WHERE site_hash = $1 AND sid = $2', [siteHash, sid]);
  return rows.length === 1;
}

/** Whether the subscriber is in the segment. */
export async function isMember(db: Queryable, siteHash: string, sid: string, subscriberId: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM segment_memberships m JOIN segments s ON s.id = m.segment_id WHERE s.site_hash = $1 AND s.sid = $2 AND m.subscriber_id = $3`,
    [siteHash, sid, subscriberId],
  );
  return rows.length === 1;
}

export async function segmentsOfSubscriber(db: Queryable, subscriberId: string): Promise<string[]> {
  const { rows } = await db.query<{ sid: string }>(
    `SELECT s.sid FROM segment_memberships m JOIN segments s ON s.id = m.segment_id WHERE m.subscriber_id = $1 ORDER BY s.sid`,
    [subscriberId],
  );
  return rows.map((row) => row.sid);
}

export async function listSegments(db: Queryable, siteHash: string): Promise<SegmentSummary[]> {
  const { rows } = await db.query<{
    sid: string;
    name: string;
    condition: string | null;
    members: string | number;
    reachable: string | number;
    created_at: Date;
  }>(
    // each segment's members counted along the memberships' primary key, never reading other sites' rows; of
    // them, those a campaign reaches (server/campaigns/audience.ts), so the list and the compose count agree: each
    // member looked up in the sendable index (a join would read the whole subscribers table)
    `SELECT s.sid, s.name, s.condition, s.created_at, n.members, n.reachable
       FROM segments s CROSS JOIN LATERAL (
         SELECT count(*) AS members,
                count(*) FILTER (WHERE EXISTS (SELECT 1 FROM subscribers sub WHERE sub.site_hash = s.site_hash
                  AND sub.id = m.subscriber_id AND sub.status = 'subscribed' AND sub.endpoint IS NOT NULL)) AS reachable
           FROM segment_memberships m WHERE m.segment_id = s.id
       ) n
      WHERE s.site_hash = $1 ORDER BY s.sid`,
    [siteHash],
  );
  return rows.map((row) => ({
    sid: row.sid,
    name: row.name,
    members: Number(row.members),
    reachable: Number(row.reachable),
    condition: row.condition,
    createdAt: new Date(row.created_at).toISOString(),
  }));
}

/** Creates a segment; false when one with this sid exists already. */
export async function createSegment(db: Queryable, siteHash: string, sid: string, name: string, condition?: string): Promise<boolean> {
  const { rows } = await db.query(
    'INSERT INTO segments (site_hash, sid, name, condition) VALUES ($1, $2, $3, $4) ON CONFLICT (site_hash, sid) DO NOTHING RETURNING id',
    [siteHash, sid, name, condition ?? null],
  );
  return rows.length === 1;
}

export async function deleteSegment(db: Queryable, siteHash: string, sid: string): Promise<boolean> {
  const { rows } = await db.query('DELETE FROM segments WHERE site_hash = $1 AND sid = $2 RETURNING id', [siteHash, sid]);
  return rows.length === 1;
}
