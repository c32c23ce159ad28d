// "The segment a call names is stored on this site, or the call is refused": one check for the owner API, the
// campaigns and the command line, answered 404 E_SEGMENT_UNKNOWN naming the parameter that named it.
import type { Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import type { HostedSite } from '../sites.ts';
import { segmentExists } from './segment-store.ts';

export async function requireSegment(db: Queryable, site: HostedSite, sid: string, param: string): Promise<void> {
  if (!(await segmentExists(db, site.hash, sid))) throw new ServerError('E_SEGMENT_UNKNOWN', { param, sid, site: site.name });
}
