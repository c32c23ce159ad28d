// A hand-made RuntimeServices for the runtime feature tests: in-memory storage, recorded calls, replies
// chosen per URL, and a real event bus.
import type { KeyValueStore, QueryParams, RuntimeServices } from '../../runtime/services.ts';
import type { SiteModule } from '../../runtime/site-module.ts';

/** The secret the double's subscriber holds (a subscriber always has one beside its id). */
export const SUBSCRIBER_SECRET_OF_DOUBLE = 'secret-of-sub-1-aaaaaaaaaaaaaaaaaaaaaaaaaaa';

export interface RecordedCall {
  kind: 'get' | 'jsonp' | 'postForm' | 'beacon';
  url: string;
  params: QueryParams;
}

export function memoryStore(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    get: (key) => data.get(key) ?? null,
    set: (key, value) => void data.set(key, value),
    remove: (key) => void data.delete(key),
  };
}

export function testSite(overrides: Partial<SiteModule> = {}): SiteModule {
  return {
    hash: 'a'.repeat(32),
    companyName: 'Test Co',
    origin: 'https://shop.test',
    serverSyncUrl: 'https://sync.test',
    servicesServerUrl: 'https://services.test',
    manifestUrl: '/manifest.json',
    swPath: '/sw.js',
    firefoxSwPath: '/sw-firefox.js',
    swScope: '/',
    vapidPublicKey: 'key',
    vapidKeyHead: 'key',
    childWindowUrl: 'https://sync.test/child-window.html',
    isInactive: false,
    urlQualifies: () => true,
    triggers: { anyOf: ['delay'], watch: [], delayMs: 5000, persist: 'page' },
    segments: [],
    clickSegments: [],
    shopSegments: [],
    prompts: { html: '', css: '' },
    ...overrides,
  };
}

export type ReplyFn = (url: string, params: QueryParams) => unknown;

export function servicesDouble(
  options: { site?: SiteModule; subscriberId?: string; tracking?: boolean; optedOut?: boolean; reply?: ReplyFn } = {},
) {
  const calls: RecordedCall[] = [];
  const emitted: string[] = [];
  const listeners = new Map<string, Set<(event: string) => void>>();
  const state = {
    subscriberId: 'subscriberId' in options ? options.subscriberId : 'sub-1',
    tracking: options.tracking ?? true,
    optedOut: options.optedOut ?? false,
    reply: options.reply ?? ((() => ({ status: 'success' })) as ReplyFn),
  };
  const answer = (kind: RecordedCall['kind'], url: string, params: QueryParams): Promise<unknown> => {
    calls.push({ kind, url, params });
    try {
      const value = state.reply(url, params);
      return value instanceof Error ? Promise.reject(value) : Promise.resolve(value);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const services: RuntimeServices = {
    site_: options.site ?? testSite(),
    subscriberId_: () => state.subscriberId,
    secret_: () => (state.subscriberId ? SUBSCRIBER_SECRET_OF_DOUBLE : ''),
    subscriptionId_: () => (state.subscriberId ? 'subscription-1' : undefined),
    trackingAllowed_: () => state.tracking,
    optedOut_: () => state.optedOut,
    get_: (url, params) => answer('get', url, params),
    jsonp_: (url, params) => answer('jsonp', url, params),
    postForm_: (url, params) => answer('postForm', url, params),
    beacon_: (url, params) => void calls.push({ kind: 'beacon', url, params }),
    local_: memoryStore(),
    session_: memoryStore(),
    cookies_: { get: () => null, set: () => undefined, remove: () => undefined },
    startedAt_: Date.now(),
    emit_(event) {
      emitted.push(event);
      for (const listener of [...(listeners.get(event) ?? []), ...(listeners.get('') ?? [])]) listener(event);
    },
    on_(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener);
    },
  };
  return {
    services,
    calls,
    emitted,
    state,
    local: services.local_ as ReturnType<typeof memoryStore>,
    session: services.session_ as ReturnType<typeof memoryStore>,
  };
}
