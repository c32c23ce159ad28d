import { useSyncExternalStore } from 'react';

// The owner's display time zone: the browser's own unless the owner picked another in the dashboard. Kept in
// this browser's localStorage (a display preference, not a site setting), shared by every tab of the dashboard.

const STORAGE_KEY = 'pushkit-dashboard-time-zone';

const listeners = new Set<() => void>();

/** The zone this browser runs in (Intl's answer), `UTC` when it has none. */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Whether `zone` is an IANA zone name this browser knows (`Europe/Berlin`, `UTC`). */
export function isKnownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function storedZone(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage refused (privacy settings): the browser's zone it is
  }
}

/** The zone every time on screen is shown in. */
export function displayZone(): string {
  const stored = storedZone();
  return stored && isKnownZone(stored) ? stored : browserZone();
}

/** Whether the owner chose the zone (rather than following the browser's). */
export function zoneIsChosen(): boolean {
  const stored = storedZone();
  return !!stored && isKnownZone(stored);
}

/** Show times in `zone` from now on; `null` goes back to the browser's zone. */
export function setDisplayZone(zone: string | null): void {
  try {
    if (zone === null) localStorage.removeItem(STORAGE_KEY);
    else if (isKnownZone(zone)) localStorage.setItem(STORAGE_KEY, zone);
  } catch {
    // storage refused: the choice lasts until the page reloads at most; nothing to tell the owner
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const fromOtherTab = (event: StorageEvent) => event.key === STORAGE_KEY && listener();
  window.addEventListener('storage', fromOtherTab);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', fromOtherTab);
  };
}

/** The display zone, re-rendering the caller when the owner changes it. */
export function useDisplayZone(): string {
  return useSyncExternalStore(subscribe, displayZone);
}

/** Every zone the browser can name, the display zone among them, for the owner to pick from. */
export function knownZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set(['UTC', ...zones, browserZone(), displayZone()])];
}
