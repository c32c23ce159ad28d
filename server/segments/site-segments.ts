// The segments of a site as its owner sees them: the stored ones, each with the condition the site config gives
// it, and the site config's segments that no visitor has joined yet (they join in push.js).
import type { Queryable } from '../db/database.ts';
import type { HostedSite } from '../sites.ts';
import { listSegments } from './segment-store.ts';
import type { Segment } from '../../contract/owner-api.ts';

export async function siteSegments(db: Queryable, site: HostedSite): Promise<Segment[]> {
  const stored = await listSegments(db, site.hash);
  const inConfig = new Map(site.config.segmentations.map((entry) => [String(entry.sid), entry.ss]));
  const segments: Segment[] = stored.map((segment) => ({ ...segment, configCondition: inConfig.get(segment.sid) ?? null }));
  for (const [sid, ss] of inConfig) {
    if (!segments.some((segment) => segment.sid === sid))
      segments.push({ sid, name: sid, members: 0, reachable: 0, condition: null, createdAt: null, configCondition: ss });
  }
  return segments.sort((a, b) => (a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : 0));
}
