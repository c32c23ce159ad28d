// The VAPID `sub` claim (RFC 8292) of a site's pushes. Apple's push service refuses a push whose subject is not
// a mailto: address or an https URL it can use (BadJwtToken); a host no one outside the machine can reach
// (localhost, an address, a name with no dot, a reserved testing name) is refused the same way. Other push
// services accept any mailto: or https: subject.
import { isIP } from 'node:net';

const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.test', '.invalid', '.home.arpa'];
/** The local part and domain of a plain address: no display name, no second address, no query. */
const ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@([A-Za-z0-9.-]{1,253})$/;

/** A DNS name someone outside this machine can resolve: at least one dot, no local-only suffix, not an address. */
function isPublicHostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (!name || isIP(name.replace(/^\[|\]$/g, '')) || !name.includes('.')) return false;
  if (name === 'localhost' || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix))) return false;
  return name.split('.').every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label));
}

/** True for `mailto:someone@public.host` and `https://public.host/...`. */
export function isAcceptedVapidSubject(subject: string): boolean {
  if (subject.startsWith('mailto:')) {
    const match = ADDRESS.exec(subject.slice('mailto:'.length));
    return Boolean(match && isPublicHostName(match[1]!));
  }
  if (!subject.startsWith('https://') || !URL.canParse(subject)) return false;
  const url = new URL(subject);
  return !url.username && !url.password && isPublicHostName(url.hostname);
}

/** Without `vapidSubject`: the site's https origin, else a mailto: address at the site's host. */
export function derivedVapidSubject(origin: string): string {
  const url = new URL(origin);
  return url.protocol === 'https:' ? url.origin : `mailto:webpush@${url.hostname}`;
}

/** The subject of a site's pushes: its `vapidSubject`, else the one derived from its origin. */
export function vapidSubjectFor(config: { vapidSubject?: string; origin: string }): string {
  return config.vapidSubject ?? derivedVapidSubject(config.origin);
}
