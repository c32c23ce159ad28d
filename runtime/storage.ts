// Browser storage that never throws: a blocked, full or missing storage reads as empty (spec section 3).
import type { CookieStore, KeyValueStore } from './services.ts';

/** Runs `fn`, returning `fallback` when the browser refuses (private mode, blocked storage, sandboxed frame). */
const safely = <T>(fn: () => T, fallback: T): T => {
  try {
    return fn();
  } catch {
    return fallback;
  }
};

export const webStore = (pick: () => Storage): KeyValueStore => ({
  get: (key) => safely(() => pick().getItem(key), null),
  set: (key, value) => safely(() => pick().setItem(key, value), undefined),
  remove: (key) => safely(() => pick().removeItem(key), undefined),
});

export const cookieStore: CookieStore = {
  get(name) {
    const prefix = name + '=';
    const found = safely(() => document.cookie, '')
      .split('; ')
      .find((part) => part.startsWith(prefix));
    return found === undefined ? null : safely(() => decodeURIComponent(found.slice(prefix.length)), null);
  },
  set(name, value, days) {
    const expires = days === undefined ? '' : ';expires=' + new Date(Date.now() + days * 864e5).toUTCString();
    safely(() => (document.cookie = name + '=' + encodeURIComponent(value) + expires + ';path=/;SameSite=Lax'), '');
  },
  remove(name) {
    cookieStore.set(name, '', -1);
  },
};
