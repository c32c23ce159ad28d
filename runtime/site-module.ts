// The contract between the compiler (compiler/) and the browser runtime: the generated module
// `pushkit:site` exports `site: SiteModule`, and the build defines `PK_FEATURES.<name>` as literal booleans
// so esbuild drops the code of every feature a site does not use. push.js's core imports `pushkit:core-site`
// instead: a CoreSiteModule. Types only for the browser: CORE_SITE_FIELDS is the compiler's (a browser module
// that imported it would carry the list; none does).

export interface SiteFeatures {
  /** The branding modal box: pcBranding is 1 and isNativeOptin is not 0. */
  brandingModal: boolean;
  /** The mobile box with a close button (style.isMobileEnabled), on a site without the branding modal. */
  mobileBox: boolean;
  /** The site is served over plain http: opt-in goes through the provider's child window. */
  childWindow: boolean;
  /** Safari's legacy push (safariWebsitePushId is set). */
  safari: boolean;
  /** iOS/iPadOS home-screen web apps: the instructions in Safari, Web Push inside the app (iosHomeScreen.enabled). */
  iosHomeScreen: boolean;
  /** Rule segments (segmentations is not empty). */
  segments: boolean;
  /** Click segments (clickSegmentations is not empty). */
  clickSegments: boolean;
  /** Online shop (isShopifyConnectedAccount). */
  shop: boolean;
  /** The page-click tracking consent checkbox (pageClickTrackingConcent). */
  trackingConsent: boolean;
  /** Trigger event kinds the site's trigger expression uses beyond `delay`. */
  triggerLoad: boolean;
  triggerClick: boolean;
  triggerMousedown: boolean;
  triggerInterval: boolean;
  triggerLeaveIntent: boolean;
  triggerScroll: boolean;
  triggerSubscribe: boolean;
  triggerEcom: boolean;
  /** Custom dimensions are read into `_vwo_cd_{dimension}` (customDimensions is not empty). */
  customDimensions: boolean;
  /** User properties are refreshed from /dyn (refreshUserProperties). */
  userProperties: boolean;
  /** Trigger events are remembered beyond the page view (triggers.persist is session or always). */
  triggerPersist: boolean;
  /**
   * What segment conditions read beyond the path: push.js's core builds only these fields of the SegmentContext.
   * `url` or `referrer`; a query parameter (`query.<name>`); `visitCount`; `timeOnSite`; a tag; an event.
   */
  segmentPage: boolean;
  segmentQuery: boolean;
  segmentVisits: boolean;
  segmentTime: boolean;
  segmentTags: boolean;
  segmentEvents: boolean;
}

export type SegmentId = number | string;

/** What a segment condition can read; built by the runtime on each page view. */
export interface SegmentContext {
  url: string;
  path: string;
  referrer: string;
  query: Record<string, string>;
  visitCount: number;
  timeOnSiteSeconds: number;
  tags: Record<string, string>;
  events: Record<string, boolean>;
}

export interface RuleSegment {
  sid: SegmentId;
  vn: number;
  test: (context: SegmentContext) => boolean;
}

export interface ClickSegment {
  sid: SegmentId;
  vn: number;
  selector: string;
}

export interface ShopSegment {
  sid: SegmentId;
  vn: number;
  event: 'add_cart' | 'order';
  test: (data: Record<string, unknown>) => boolean;
}

/** Markup of the host-page prompts, rendered by React at build time; every config text is escaped. */
export interface PromptMarkup {
  chicklet: string;
  contextBox: string;
  alreadySubscribed: string;
  blocked: string;
  /** Shown when a subscribe fails after the visitor's Yes (texts.subscribeFailed). */
  subscribeFailed: string;
  brandingModal?: string;
  mobileBox?: string;
  /** The "Add to Home Screen" instructions (iosHomeScreen feature). */
  homeScreen?: string;
  /** The stylesheet of all prompts, inserted once in a <style> element. */
  css: string;
}

/** The prompts as push.js carries them: every root of PromptMarkup in one string (they are inserted together). */
export interface PromptBundle {
  html: string;
  css: string;
}

export interface TriggerConfig {
  /** Event names of the trigger expression once every and/or is rewritten to or. */
  anyOf: string[];
  /** Events segment conditions name (`event.scroll`) that the trigger expression does not: watched, never firing. */
  watch: string[];
  delayMs: number;
  clickSelector?: string;
  mousedownSelector?: string;
  intervalTicks?: number;
  /**
   * The scroll event's test, compiled from triggers.scroll (percent of the scrollable distance, pixels from the top or
   * from the bottom, each within 2 px): `top` is scrollY, `scrollable` the page's height less the window's. Absent
   * without triggers.scroll (the event never happens).
   */
  scrolled?: (top: number, scrollable: number) => boolean;
  persist: 'page' | 'session' | 'always';
}

export interface SiteModule {
  hash: string;
  companyName: string;
  origin: string;
  /** Base URLs without a trailing slash. */
  serverSyncUrl: string;
  servicesServerUrl: string;
  manifestUrl: string;
  swPath: string;
  firefoxSwPath: string;
  swScope: string;
  vapidPublicKey: string;
  /**
   * The key's first 20 characters (15 bytes, whole base64 groups): push.js's core compares a subscription's key with
   * it (view-decision.ts), and carries no more of the key. The config's key is always a P-256 public key.
   */
  vapidKeyHead: string;
  safariWebsitePushId?: string;
  /** Safari's legacy push: the webServiceURL the site serves Apple's push package service at, without a trailing slash. */
  safariWebServiceUrl?: string;
  /** Names of the custom dimensions read for a subscriber; only when there are some. */
  customDimensions?: string[];
  /** The provider's child-window page for this site (http sites). */
  childWindowUrl: string;
  isInactive: boolean;
  /** Opt-in URL qualification, compiled from includeUrls / excludeUrls. */
  urlQualifies: (url: string) => boolean;
  triggers: TriggerConfig;
  segments: RuleSegment[];
  clickSegments: ClickSegment[];
  shopSegments: ShopSegment[];
  prompts: PromptBundle;
}

/**
 * The fields of `pushkit:core-site`, push.js's core's site module (compiler/site-module.ts writes only these): what
 * the core (runtime/api.ts and what it imports) reads. The chunks import `pushkit:site`, the whole SiteModule. A
 * core module that reads another field fails the typecheck, as does a chunk handed the core's copy for a SiteModule.
 */
export const CORE_SITE_FIELDS = [
  'hash',
  'servicesServerUrl',
  'swScope',
  'vapidKeyHead',
  'safariWebsitePushId',
  'isInactive',
  'urlQualifies',
  'triggers',
  'segments',
  'clickSegments',
] as const satisfies readonly (keyof SiteModule)[];

/**
 * push.js's core's site module. A false `isInactive` is left out (read as undefined), as are empty `segments` and
 * `clickSegments`: their feature flags are then off (compiler/features.ts), so the core never reads them.
 */
export type CoreSiteModule = Pick<SiteModule, (typeof CORE_SITE_FIELDS)[number]>;

/** What the service workers know of their site: the generated module `pushkit:worker-site`. */
export interface WorkerSiteModule {
  hash: string;
  origin: string;
  serverSyncUrl: string;
  vapidPublicKey: string;
  swScope: string;
  /** Default icon of notifications (style.iconUrl). */
  iconUrl?: string;
  /** Title of a notification whose payload has none (companyName). */
  companyName: string;
  /** Origins besides the site's own that a notification click may open (notificationClickOrigins). */
  notificationClickOrigins: string[];
}
