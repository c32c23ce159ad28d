// Which optional parts of the runtime a site needs; each becomes a `PK_FEATURES.<name>` build constant.
import type { SiteConfig } from '../config/schema.ts';
import type { SiteFeatures } from '../runtime/site-module.ts';
import type { CompiledSite } from './compiled-site.ts';

/** Every feature flag, once: the build's constants (emit/bundle.ts) and the unit tests' all-on build are made from it. */
export const FEATURE_NAMES = [
  'brandingModal',
  'mobileBox',
  'childWindow',
  'safari',
  'iosHomeScreen',
  'segments',
  'clickSegments',
  'shop',
  'trackingConsent',
  'triggerLoad',
  'triggerClick',
  'triggerMousedown',
  'triggerInterval',
  'triggerLeaveIntent',
  'triggerScroll',
  'triggerSubscribe',
  'triggerEcom',
  'triggerPersist',
  'customDimensions',
  'userProperties',
  'segmentPage',
  'segmentQuery',
  'segmentVisits',
  'segmentTime',
  'segmentTags',
  'segmentEvents',
] as const satisfies readonly (keyof SiteFeatures)[];

// A flag of SiteFeatures missing from FEATURE_NAMES fails the typecheck here.
const everyFlagListed: Record<Exclude<keyof SiteFeatures, (typeof FEATURE_NAMES)[number]>, never> = {};
void everyFlagListed;

/** The `PK_FEATURES.<name>` constants esbuild (and vitest) replace, each true or false. */
export function featureDefines(features: SiteFeatures): Record<string, string> {
  return Object.fromEntries(FEATURE_NAMES.map((name) => [`PK_FEATURES.${name}`, features[name] ? 'true' : 'false']));
}

/** The site's numbers the runtime reads as build-time constants (`PK_CONSTANTS.<name>`, runtime/globals.d.ts). */
export interface SiteConstants {
  doNotShowDays: number;
}

/** The schema's defaults: what the unit tests and a build without a config use. */
export const DEFAULT_CONSTANTS: SiteConstants = { doNotShowDays: 7 };

export const siteConstants = (config: Pick<SiteConfig, 'doNotShowDays'>): SiteConstants => ({ doNotShowDays: config.doNotShowDays });

/** The `PK_CONSTANTS.<name>` literals esbuild (and vitest) replace: a constant costs no more than the number itself. */
export function constantDefines(constants: SiteConstants): Record<string, string> {
  return { 'PK_CONSTANTS.doNotShowDays': String(constants.doNotShowDays) };
}

/** Every feature on, as in an everything-on build. */
export function allFeatures(): SiteFeatures {
  return Object.fromEntries(FEATURE_NAMES.map((name) => [name, true])) as unknown as SiteFeatures;
}

/** Hosts a browser treats as a secure context over plain http (localhost, loopback). */
export function isLocalHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** Browsers treat localhost as a secure context, so only a remote plain-http origin needs the child window. */
export function needsChildWindow(origin: string): boolean {
  const url = new URL(origin);
  return url.protocol === 'http:' && !isLocalHost(url.hostname);
}

export function siteFeatures(config: SiteConfig, compiled: CompiledSite): SiteFeatures {
  const kinds = new Set([...compiled.triggerEvents, ...compiled.segmentEvents]);
  const brandingModal = config.pcBranding === 1 && config.isNativeOptin !== 0;
  const reads = (field: string): boolean => compiled.segmentTests.some((js) => js.includes(field));
  return {
    brandingModal,
    // The modal is the prompt wherever it shows, phones included: a site with it never shows the mobile box.
    mobileBox: config.style.isMobileEnabled && !brandingModal,
    childWindow: needsChildWindow(config.origin),
    safari: !!config.safariWebsitePushId,
    iosHomeScreen: config.iosHomeScreen.enabled,
    segments: config.segmentations.length > 0,
    clickSegments: config.clickSegmentations.length > 0,
    shop: config.isShopifyConnectedAccount,
    trackingConsent: config.pageClickTrackingConcent,
    triggerLoad: kinds.has('load'),
    triggerClick: kinds.has('click'),
    triggerMousedown: kinds.has('mousedown'),
    triggerInterval: kinds.has('interval'),
    triggerLeaveIntent: kinds.has('leaveIntent'),
    triggerScroll: kinds.has('scroll'),
    triggerSubscribe: kinds.has('subscribe'),
    triggerEcom: [...kinds].some((kind) => kind === 'ecom' || kind.startsWith('ecom.')),
    triggerPersist: config.triggers.persist !== 'page',
    customDimensions: config.customDimensions.length > 0,
    userProperties: config.refreshUserProperties,
    // what the conditions read, from their code (compiler/condition-codegen.ts PAGE_FIELDS and PAGE_MAPS)
    segmentPage: reads('c.url') || reads('c.referrer'),
    segmentQuery: reads('c.query'),
    segmentVisits: reads('c.visitCount'),
    segmentTime: reads('c.timeOnSiteSeconds'),
    segmentTags: reads('c.tags'),
    segmentEvents: reads('c.events'),
  };
}
