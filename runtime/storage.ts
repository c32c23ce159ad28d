// Browser storage that never throws: a blocked, full or missing storage reads as empty (spec section 3).
import type { CookieStore, KeyValueStore } from './services.ts';

/** Runs `fn`, returning `fallback` when the browser refuses (private mode, blocked storage, sandboxed frame). */
const safely = <T>(fn: () => T, fallback?: T): T => {
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
 * The cookies as the view's start read them (readCookies), with our own writes since: document.cookie's first read
 * in a page is a synchronous call to the browser process, the Cookie Store API's an asynchronous one. `null` once
 * the start is done (dropCookies) or after a write while no snapshot was kept: reads then go to document.cookie.
 */
let jar: string | null | undefined;

/** How long a view waits for the Cookie Store API's answer; then its reads go to document.cookie. */
export const COOKIE_READ_TIMEOUT_MS = 500;

/**
 * Reads the cookies once without blocking the page where the browser has the Cookie Store API (a secure context);
 * a browser that does not answer in COOKIE_READ_TIMEOUT_MS leaves the reads to document.cookie (the view is decided).
 */
export const readCookies = async (): Promise<void> => {
  // `window.`: this module's `cookieStore` is ours
  const api = window.cookieStore as CookieStoreApi | undefined;
  try {
    const read =
      api &&
      (
        await new Promise<Awaited<ReturnType<CookieStoreApi['getAll']>>>((resolve, reject) => {
          api.getAll().then(resolve, reject);
          // set from a microtask: a timer set with the whole script on the stack has V8 re-parse all of it for
          // the stack trace an attached DevTools session records (bench/README.md, "source positions")
          void Promise.resolve().then(() => setTimeout(reject, COOKIE_READ_TIMEOUT_MS));
        })
      )
        .map((cookie) => cookie.name + '=' + cookie.value)
        .join('; ');
    // not kept when we wrote a cookie meanwhile (the read may predate it)
    if (jar === undefined) jar = read;
  } catch {
    // blocked or no answer: read through document.cookie
  }
};
type CookieStoreApi = typeof window.cookieStore;

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
