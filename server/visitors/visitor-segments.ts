// Which segments a visitor's browser may join (/as and the c.gif beacon). Any segment that is stored (the
// owner's, or one a visitor created before) or that the site config names; a sid that is neither creates a
// segment only while the site has fewer than VISITOR_SEGMENTS_PER_SITE segments created that way, so
// `GET /as?id=junk-seg-N` cannot fill the owner's segment list (issue 17, item 4).
import type { Queryable } from '../db/database.ts';
import type { HostedSite } from '../sites.ts';

export const VISITOR_SEGMENTS_PER_SITE = 20;

/** The sids the site config names: condition, click and shop segmentations. */
export function configSegmentIds(site: Pick<HostedSite, 'config'>): Set<string> {
  const { segmentations, clickSegmentations, shopifySegmentations } = site.config;
  return new Set([...segmentations, ...clickSegmentations, ...shopifySegmentations].map((entry) => String(entry.sid)));
}

/** The stored segment a visitor call may join, created when allowed; null when the site has no room for it. */
export async function segmentForVisitor(tx: Queryable, site: Pick<HostedSite, 'hash' | 'config'>, sid: string): Promise<string | null> {
  const find = async () =>
    (await tx.query<{ id: string }>('SELECT id FROM segments WHERE site_hash = $1 AND sid = $2', [site.hash, sid])).rows[0]?.id;
  const stored = await find();
  if (stored !== undefined) return String(stored);
  const inConfig = configSegmentIds(site).has(sid);
  if (!inConfig) {
    // one creation at a time per site, so concurrent calls cannot pass the count together
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`visitor-segments ${site.hash}`]);
    const made = await find();
    if (made !== undefined) return String(made);
    const { rows } = await tx.query<{ count: string | number }>(
      `SELECT count(*) AS count FROM segments WHERE site_hash = $1 AND created_by = 'visitor'`,
      [site.hash],
    );
    if (Number(rows[0]?.count ?? 0) >= VISITOR_SEGMENTS_PER_SITE) return null;
  }
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO segments (site_hash, sid, name, created_by) VALUES ($1, $2, $2, $3)
     ON CONFLICT (site_hash, sid) DO UPDATE SET sid = EXCLUDED.sid RETURNING id`,
    [site.hash, sid, inConfig ? 'config' : 'visitor'],
  );
  return String(rows[0]!.id);
}
