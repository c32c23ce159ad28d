// The page in the address: `#/<screen>/<id>?name=value`. The path names the screen and what it shows; the query
// keeps a list's search, filter, order and page, so a reload or the browser's Back shows the same page.
import { useEffect, useState } from 'react';

/** The path of the hash, `#/campaigns/12?q=ink` -> ['campaigns', '12']. */
export function routeOf(hash: string): string[] {
  return hash.replace(/^#\/?/, '').split('?')[0]!.split('/').map(decodeURIComponent);
}

/** The query of the hash, `#/campaigns?q=ink` -> q=ink. */
export function hashQueryOf(hash: string): URLSearchParams {
  const at = hash.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : hash.slice(at + 1));
}

/** The hash's query, following the address (Back and Forward included). */
export function useHashQuery(): URLSearchParams {
  const [query, setQuery] = useState(() => hashQueryOf(window.location.hash));
  useEffect(() => {
    const update = () => setQuery(hashQueryOf(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return query;
}

/** Goes to the same screen with this query (a new history entry, so Back returns to the last one). */
export function setHashQuery(values: Record<string, string | number | undefined>): void {
  const path = window.location.hash.split('?')[0] || '#/';
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== '') query.set(name, String(value));
  const text = query.toString();
  window.location.hash = text ? `${path}?${text}` : path;
}
