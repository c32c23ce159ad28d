// Browser storage that never throws: a blocked, full or missing storage reads as empty (spec section 3).
import type { CookieStore, KeyValueStore } from './services.ts';

/** Runs `fn`, returning `fallback` when the browser refuses (private mode, blocked storage, sandboxed frame). */
export const safely = <T>(fn: () => T, fallback?: T): T => {
  try {
    return fn();
  } catch {
    return fallback as T;
  }
};

/** localStorage (its getter throws where storage is blocked, so it is read inside each call). */
export const localStore: KeyValueStore = {
  get: (key) => safely(() => localStorage.getItem(key), null),
  set: (key, value) => safely(() => localStorage.setItem(key, value)),
  remove: (key) => safely(() => localStorage.removeItem(key)),
};

/**
 * The cookies as the view's start read them (readCookies), with our own writes since: each read of document.cookie
 * may be a synchronous call to the browser process, so the view's reads share one. `null` once the start is done
 * (dropCookies) or after a write while no snapshot was kept: reads then go to document.cookie.
 */
let jar: string | null | undefined;

/**
 * Reads the cookies once for the view's start, from a microtask: under an attached DevTools session document.cookie
 * records its caller's stack, and V8 re-parses each function on it for source positions (from the script's top level,
 * all of push.js; bench/README.md, "source positions"). Not the Cookie Store API: its object, its promise, the
 * answer's cookie objects and a fallback timer cost more main-thread CPU than the synchronous read (0.48 ms of a first
 * visit in a same-run A/B of the two alone, 25 views each at load 13; issue 34, round ten).
 */
export const readCookies = async (): Promise<void> => {
  await 0;
  // not kept when we wrote a cookie meanwhile; read here, not through `safely`: the stack DevTools records is this
  // function alone (each function on it is re-parsed once, 30-60 µs each)
  if (jar === undefined) {
    try {
      jar = document.cookie;
    } catch {
      jar = '';
    }
  }
};

export const dropCookies = (): void => void (jar = null);

export const cookieStore: CookieStore = {
  get(name) {
    const prefix = name + '=';
    const found = (jar == null ? safely(() => document.cookie, '') : jar).split('; ').find((part) => part.startsWith(prefix));
    return found === undefined ? null : safely(() => decodeURIComponent(found.slice(prefix.length)), null);
  },
  set(name, value, days) {
    const cookie = name + '=' + encodeURIComponent(value);
    // max-age in seconds, not expires: a first visit's uuid cookie would format the first Date of the page
    const expires = days === undefined ? '' : ';max-age=' + days * 86400;
    // a value written is read first from the snapshot; a removal drops it
    jar = jar == null || days! < 0 ? null : cookie + '; ' + jar;
    safely(() => (document.cookie = cookie + expires + ';path=/;SameSite=Lax'), '');
  },
  remove(name) {
    cookieStore.set(name, '', -1);
  },
};
