// The owner keys the dashboard signed in with, kept for this browser tab only (sessionStorage), never in a URL.
import type { SiteSummary } from '../../contract/owner-api.ts';

const STORAGE_KEY = 'pushkit-dashboard';

export interface SignedInSite {
  key: string;
  site: SiteSummary;
}

export interface Session {
  sites: SignedInSite[];
  current: string | null;
}

const EMPTY: Session = { sites: [], current: null };

export function loadSession(): Session {
  try {
    const stored = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Session | null;
    if (stored && Array.isArray(stored.sites)) return stored;
  } catch {
    // storage blocked or a damaged entry: start signed out
  }
  return EMPTY;
}

export function saveSession(session: Session): void {
  try {
    if (session.sites.length === 0) sessionStorage.removeItem(STORAGE_KEY);
    else sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  } catch {
    // storage blocked: the session lasts as long as the page
  }
}

/** Adds the sites a key opens; the first of them becomes the current site. */
export function withSites(session: Session, key: string, sites: SiteSummary[]): Session {
  const others = session.sites.filter((entry) => !sites.some((site) => site.name === entry.site.name));
  return { sites: [...others, ...sites.map((site) => ({ key, site }))], current: sites[0]?.name ?? session.current };
}

export function withoutSite(session: Session, name: string): Session {
  const sites = session.sites.filter((entry) => entry.site.name !== name);
  return { sites, current: session.current === name ? (sites[0]?.site.name ?? null) : session.current };
}
