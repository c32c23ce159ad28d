// A controllable browser for the runtime tests (happy-dom plus stubs): Notification and the Permissions API, a service worker
// registration with a PushManager, fetch with per-path replies, and the user agent.
import { vi } from 'vitest';

export const CHROME_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

export interface FetchCall {
  url: string;
  method: string;
  form: URLSearchParams;
}

export interface BrowserOptions {
  permission?: NotificationPermission;
  /** What the permission prompt answers, after `answerAfterMs`. */
  answer?: NotificationPermission;
  answerAfterMs?: number;
  /** The browser already holds a subscription with this endpoint. */
  existingEndpoint?: string;
  /** How many pushManager.subscribe calls fail before one succeeds. */
  subscribeFailures?: number;
  userAgent?: string;
  /** Replies by URL path; a function may return an Error (a network failure) or a Response body. */
  replies?: Record<string, unknown | ((call: FetchCall) => unknown)>;
  serviceWorker?: boolean;
  /** false: no PushManager (Safari before 16, with only its legacy window.safari push). */
  pushManager?: boolean;
}

export interface FakeSubscription {
  endpoint: string;
  unsubscribed: boolean;
  toJSON(): { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
  unsubscribe(): Promise<boolean>;
}

const fakeSubscription = (endpoint: string): FakeSubscription => ({
  endpoint,
  unsubscribed: false,
  toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh: 'BPubKey_-123', auth: 'authKey_-1' } }),
  async unsubscribe() {
    this.unsubscribed = true;
    return true;
  },
});

/** The secret the fake provider issues with its default sync reply. */
export const ISSUED_SECRET = 'issued-secret-for-sub-1-aaaaaaaaaaaaaaaaaaa';

export function installBrowser(options: BrowserOptions = {}) {
  const state = {
    permission: options.permission ?? 'default',
    subscription: options.existingEndpoint ? fakeSubscription(options.existingEndpoint) : (null as FakeSubscription | null),
    subscribeFailures: options.subscribeFailures ?? 0,
    registered: !!options.existingEndpoint,
    nextEndpoint: 'https://fcm.googleapis.com/fcm/send/token-new',
    replies: {
      '/syncSubscriptionAction.php': { status: 'success', subscriberId: 'sub-1', subscriberSecret: ISSUED_SECRET },
      ...options.replies,
    } as Record<string, unknown>,
  };
  const fetchCalls: FetchCall[] = [];
  const subscribeCalls: PushSubscriptionOptionsInit[] = [];
  const posted: unknown[] = [];
  const requestPermission = vi.fn(async (callback?: (p: NotificationPermission) => void) => {
    if (options.answerAfterMs) await new Promise((resolve) => setTimeout(resolve, options.answerAfterMs));
    if (options.answer) state.permission = options.answer;
    callback?.(state.permission);
    return state.permission;
  });
  class FakeNotification {
    static get permission() {
      return state.permission;
    }
    static requestPermission = requestPermission;
  }
  const pushManager = {
    getSubscription: async () => (state.subscription && !state.subscription.unsubscribed ? state.subscription : null),
    subscribe: vi.fn(async (init: PushSubscriptionOptionsInit) => {
      subscribeCalls.push(init);
      // as a browser does for a permission the visitor blocked (incognito refuses with an AbortError instead)
      if (state.permission === 'denied') throw new DOMException('Registration failed - permission denied', 'NotAllowedError');
      if (state.subscribeFailures > 0) {
        state.subscribeFailures--;
        throw new DOMException('Registration failed - missing applicationServerKey', 'AbortError');
      }
      state.subscription = fakeSubscription(state.nextEndpoint);
      return state.subscription;
    }),
  };
  const registration = {
    active: { state: 'activated', postMessage: (message: unknown) => posted.push(message) },
    installing: null,
    waiting: null,
    pushManager,
  };
  const register = vi.fn(async () => {
    state.registered = true;
    return registration;
  });
  const serviceWorker = { register, getRegistration: async () => (state.registered ? registration : undefined) };

  vi.stubGlobal('Notification', FakeNotification);
  // push.js's core asks the Permissions API (happy-dom's answers granted for everything)
  Object.defineProperty(navigator, 'permissions', {
    value: { query: async () => ({ state: state.permission === 'default' ? 'prompt' : state.permission }) },
    configurable: true,
  });
  if (options.pushManager === false) delete (window as { PushManager?: unknown }).PushManager;
  else vi.stubGlobal('PushManager', class {});
  Object.defineProperty(navigator, 'userAgent', { value: options.userAgent ?? CHROME_UA, configurable: true });
  if (options.serviceWorker === false) delete (navigator as { serviceWorker?: unknown }).serviceWorker;
  else Object.defineProperty(navigator, 'serviceWorker', { value: serviceWorker, configurable: true });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string, init?: RequestInit) => {
      const url = new URL(input, location.href);
      const call = { url: url.href, method: init?.method ?? 'GET', form: new URLSearchParams(init?.body ? String(init.body) : url.search) };
      fetchCalls.push(call);
      const reply = state.replies[url.pathname];
      const value = typeof reply === 'function' ? (reply as (c: FetchCall) => unknown)(call) : reply;
      if (value instanceof Error) throw value;
      if (value instanceof Response) return value;
      if (value === undefined) return new Response('not found', { status: 404 });
      // as the provider answers (server/http/reply.ts): JSONP when the request names a callback
      const callback = call.form.get('callback');
      if (callback) return new Response(`/**/ ${callback}(${JSON.stringify(value)});`, { status: 200 });
      return new Response(JSON.stringify(value), { status: 200, headers: { 'content-type': 'application/json' } });
    }),
  );
  const syncCalls = () => fetchCalls.filter((call) => call.url.endsWith('/syncSubscriptionAction.php'));
  return { state, fetchCalls, syncCalls, subscribeCalls, requestPermission, register, posted };
}

// A page's timers end with it, as a navigation ends them. The runtimes of earlier tests in a file stay alive and read
// the same globals: the 5-s prompt trigger of one started 5 s before (a loaded machine's file reaches its eighth test
// by then) subscribed on a later test's page, through that test's pushManager.
const pageTimers = new Set<ReturnType<typeof setTimeout>>();
const browserSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((run: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const timer = browserSetTimeout(() => {
    pageTimers.delete(timer);
    run(...args);
  }, ms);
  pageTimers.add(timer);
  return timer;
}) as typeof setTimeout;

/** A new page view: ends the previous page's timers, clears storage, cookies, the DOM and the URL. */
export function resetPage(path = '/'): void {
  for (const timer of pageTimers) clearTimeout(timer);
  pageTimers.clear();
  localStorage.clear();
  sessionStorage.clear();
  for (const cookie of document.cookie.split('; ')) {
    const name = cookie.split('=')[0];
    if (name) document.cookie = name + '=;expires=Thu, 01 Jan 1970 00:00:00 GMT;path=/';
  }
  document.body.innerHTML = '';
  document.adoptedStyleSheets = [];
  history.replaceState(null, '', path);
}

/** Lets pending promise chains run. */
export const settle = async (rounds = 20): Promise<void> => {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};
