// What a site's owner does with one subscriber, for the owner API's routes and the command line alike: read
// everything stored about them (a privacy access request) and erase them (a deletion request). Both refuse an
// id the site does not have with E_SUBSCRIBER_UNKNOWN naming the parameter.
import type { Database, Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import type { HostedSite } from '../sites.ts';
import { deleteSubscriber, exportSubscriber } from './subscriber-records.ts';
import type { SubscriberExport } from '../../contract/owner-api.ts';

export async function subscriberRecord(db: Queryable, site: HostedSite, id: string, param = 'id'): Promise<SubscriberExport> {
  const exported = await exportSubscriber(db, site.hash, id);
  if (!exported) throw new ServerError('E_SUBSCRIBER_UNKNOWN', { param, id, site: site.name });
  return exported;
}

export async function eraseSubscriber(db: Database, site: HostedSite, id: string, param = 'id'): Promise<void> {
  if (!(await deleteSubscriber(db, site.hash, id))) throw new ServerError('E_SUBSCRIBER_UNKNOWN', { param, id, site: site.name });
}
