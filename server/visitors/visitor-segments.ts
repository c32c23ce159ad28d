// Which segments a visitor's browser may join (/as and the c.gif beacon). Any segment that is stored (the
// owner's, or one a visitor created before) or that the site config names; a sid that is neither creates a
// segment only while its creator (the subscriber, then its address) and the site are under their bounds, so
// `GET /as?id=junk-seg-N` cannot fill the owner's segment list (issue 17, item 4), and one caller cannot use up
// the room every other visitor has (issue 27, item 5): the site-wide bound is only the last one.
import type { Queryable } from '../db/database.ts';
import type { HostedSite } from '../sites.ts';

export const VISITOR_SEGMENTS_PER_SUBSCRIBER = 5;
export const VISITOR_SEGMENTS_PER_ADDRESS = 10;
export const VISITOR_SEGMENTS_PER_SITE = 20;

/** Who a visitor call creating a segment comes from: its subscriber, and its address as the rate limit counts it. */
export interface SegmentCreator {
  subscriberId: string;
  address: string;
}

/** The bound a creation ran into: who may create no more, and how many that one may. */
export interface SegmentBound {
  who: string;
  limit: number;
}

/** The sids the site config names: condition, click and shop segmentations. */
export function configSegmentIds(site: Pick<HostedSite, 'config'>): Set<string> {
  const { segmentations, clickSegmentations, shopifySegmentations } = site.config;
  return new Set([...segmentations, ...clickSegmentations, ...shopifySegmentations].map((entry) => String(entry.sid)));
}

/** The stored segment a visitor call may join, created when allowed; else the bound that refused it. */
export async function segmentForVisitor(
  tx: Queryable,
  site: Pick<HostedSite, 'hash' | 'config'>,
  sid: string,
  creator: SegmentCreator,
): Promise<{ id: string } | { bound: SegmentBound }> {
  const find = async () =>
    (await tx.query<{ id: string }>('SELECT id FROM segments WHERE site_hash = $1 AND sid = $2', [site.hash, sid])).rows[0]?.id;
  const stored = await find();
  if (stored !== undefined) return { id: String(stored) };
  const inConfig = configSegmentIds(site).has(sid);
  if (!inConfig) {
    // one creation at a time per site, so concurrent calls cannot pass the counts together
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`visitor-segments ${site.hash}`]);
    const made = await find();
    if (made !== undefined) return { id: String(made) };
    const { rows } = await tx.query<{ by_subscriber: string | number; by_address: string | number; on_site: string | number }>(
      `SELECT count(*) FILTER (WHERE creator_subscriber = $2) AS by_subscriber,
              count(*) FILTER (WHERE creator_address = $3) AS by_address,
              count(*) AS on_site
         FROM segments WHERE site_hash = $1 AND created_by = 'visitor'`,
      [site.hash, creator.subscriberId, creator.address],
    );
    const counts = rows[0]!;
    if (Number(counts.by_subscriber) >= VISITOR_SEGMENTS_PER_SUBSCRIBER) {
      return { bound: { who: 'this subscriber', limit: VISITOR_SEGMENTS_PER_SUBSCRIBER } };
    }
    if (Number(counts.by_address) >= VISITOR_SEGMENTS_PER_ADDRESS) {
      return { bound: { who: 'this address', limit: VISITOR_SEGMENTS_PER_ADDRESS } };
    }
    if (Number(counts.on_site) >= VISITOR_SEGMENTS_PER_SITE) return { bound: { who: 'visitors', limit: VISITOR_SEGMENTS_PER_SITE } };
  }
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO segments (site_hash, sid, name, created_by, creator_subscriber, creator_address) VALUES ($1, $2, $2, $3, $4, $5)
     ON CONFLICT (site_hash, sid) DO UPDATE SET sid = EXCLUDED.sid RETURNING id`,
    [site.hash, sid, inConfig ? 'config' : 'visitor', inConfig ? null : creator.subscriberId, inConfig ? null : creator.address],
  );
  return { id: String(rows[0]!.id) };
}
