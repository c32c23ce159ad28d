// "The subscriber a call names exists on this site, or the call is refused": one check for the owner API, the
// campaigns and the command line, answered 404 E_SUBSCRIBER_UNKNOWN naming the parameter that named it.
import type { Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import type { HostedSite } from '../sites.ts';
import { subscriberExists } from './subscriber-records.ts';

export async function requireSubscriber(db: Queryable, site: HostedSite, id: string, param: string): Promise<void> {
  if (!(await subscriberExists(db, site.hash, id))) throw new ServerError('E_SUBSCRIBER_UNKNOWN', { param, id, site: site.name });
}
