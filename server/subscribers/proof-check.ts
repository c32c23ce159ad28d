// The check of the services calls that read or change one subscriber (/as, c.gif, /tags, /dyn, attributes,
// consent, order details): the subscriber exists on the site and the request shows the secret its browser
// was issued. A subscriber stored before secrets existed gets one on its next sync, and is refused until then.
import { ServerError } from '../errors.ts';
import type { Queryable } from '../db/database.ts';
import { secretHashOf, secretMatches } from './subscriber-secret.ts';
import type { HostedSite } from '../sites.ts';

export async function requireProvenSubscriber(
  db: Queryable,
  site: HostedSite,
  id: string,
  secret: string | undefined,
  parameter: string,
): Promise<void> {
  const stored = await secretHashOf(db, site.hash, id);
  if (stored === undefined) throw new ServerError('E_SUBSCRIBER_UNKNOWN', { param: parameter, id });
  if (!secret) throw new ServerError('E_SUBSCRIBER_SECRET_MISSING', { param: parameter });
  if (!secretMatches(stored, secret)) throw new ServerError('E_SUBSCRIBER_SECRET_WRONG', { param: parameter });
}
