// What the lifecycle core (lifecycle.ts, api.ts and the opt-in paths) hands to the feature modules (segments,
// triggers, shop, tags), so each feature file depends on this interface only. Types only.
import type { CoreSiteModule, SiteModule } from './site-module.ts';

export type QueryParams = Record<string, string | number | boolean | undefined>;

export interface KeyValueStore {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

export interface CookieStore {
  get(name: string): string | null;
  /** `days` omitted: a session cookie. */
  set(name: string, value: string, days?: number): void;
  remove(name: string): void;
}

export interface RuntimeServices {
  site_: SiteModule;
  /** The stored subscriber id (wingify_push_subscriber_id), when the visitor is a synced subscriber. */
  subscriberId_(): string | undefined;
  /**
   * The stored subscriber secret (pushkit_subscriber_secret), sent as `subscriberSecret` with every call about
   * the subscriber; empty when there is none (the provider then refuses the call).
   */
  secret_(): string;
  /** The stored subscription id (wingify_push_subscription_id). */
  subscriptionId_(): string | undefined;
  /**
   * Whether page clicks may be tracked (wingify_donot_track_actions): on a site that asks, only after the visitor
   * ticked the box (0); elsewhere unless refused (1).
   */
  trackingAllowed_(): boolean;
  /** False after an opt-out ({product}_opt_out): triggers are disabled. */
  optedOut_(): boolean;
  /** GET with a query string; resolves the JSON reply (or null for an empty body), rejects on failure. */
  get_(url: string, params: QueryParams): Promise<unknown>;
  /** JSONP GET (a script element with a callback); rejects with an error when the callback is not called. */
  jsonp_(url: string, params: QueryParams): Promise<unknown>;
  /** POST as a form body; resolves the JSON (or JSONP) reply, rejects on failure. */
  postForm_(url: string, params: QueryParams): Promise<unknown>;
  /** Fire-and-forget image beacon (c.gif). */
  beacon_(url: string, params: QueryParams): void;
  /** localStorage, never throwing (a blocked or full storage reads as empty). */
  local_: KeyValueStore;
  /**
   * Kept for the browser session, in session cookies: a page view's first touch of sessionStorage is a
   * synchronous call to the browser process (1 to 5 ms of the page's main thread in Chromium), while
   * document.cookie is read on every view anyway and cheap after the first read.
   */
  session_: KeyValueStore;
  cookies_: CookieStore;
  /** When the host page's `load` fired (Date.now()), set by the core on a shop view: the shop's delays count from it. */
  loadedAt_?: number;
  /**
   * When push.js's core started this view (Date.now()): the trigger's delay and interval and the leave intent's first
   * second count from it, also where the lifecycle chunk starts watching the triggers (whenever it arrives).
   */
  startedAt_: number;
  /** Record that a trigger event happened (for segment conditions and the opt-in trigger). */
  emit_(event: string): void;
  /** Subscribe to trigger events emitted by any module; `''`: to every event, the listener gets its name. */
  on_(event: string, listener: (event: string) => void): void;
}

/**
 * The services of push.js's core: its own site module (CoreSiteModule: the chunk's runtime puts its full copy in),
 * without the transport calls only the lifecycle chunk makes (its runtime brings transport.ts); the core's own
 * requests (a tag batch, a segment join) go through `get_`, which loads the chunk.
 */
export type CoreServices = Omit<RuntimeServices, 'site_' | 'jsonp_' | 'postForm_' | 'beacon_'> & { site_: CoreSiteModule };
