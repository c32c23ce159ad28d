// Generates the source of the modules `pushkit:site` and `pushkit:worker-site` (runtime/site-module.ts):
// constants and the predicates validation compiled, so the browser never parses a pattern, condition or expression.
import type { SiteConfig } from '../config/schema.ts';
import { CORE_SITE_FIELDS, type PromptBundle, type PromptMarkup, type SiteModule } from '../runtime/site-module.ts';
import type { CompiledSite } from './compiled-site.ts';
import { MAX_MATCHED_URL_LENGTH } from './url-patterns.ts';

/** A JS literal of any JSON value that is also safe inside an inline <script> and in pre-ES2019 parsers. */
export function jsLiteral(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function stripTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * The RegExp as a literal, `/source/flags`: V8 parses a literal once per page (each evaluation clones it), where
 * `new RegExp(...)` parses its string at every call (issue 34: a first visit's urlQualifies). A source holding `<`
 * (which an inline <script> must not carry as `</script`, and which cannot be escaped inside a literal without
 * breaking a lookbehind `(?<=` or changing `\<`) or a line separator travels as a safe string literal instead:
 * `new RegExp("source", "flags")`, where `/` needs no escape, so the `\/` of RegExp.source is written `/`.
 */
export function regexLiteral(regex: RegExp): string {
  if (!/[<\u2028\u2029\n\r]/.test(regex.source)) return `/${regex.source}/${regex.flags}`;
  const source = regex.source.replace(/(?<!\\)((?:\\\\)*)\\\//g, '$1/');
  return `new RegExp(${jsLiteral(source)}${regex.flags ? `,${jsLiteral(regex.flags)}` : ''})`;
}

function urlQualifiesSource(config: SiteConfig, { include, exclude }: CompiledSite): string {
  const includeTest = config.includeUrls.includes('*') ? 'true' : include ? `${regexLiteral(include)}.test(u)` : 'false';
  const excludeTest = exclude ? `&&!${regexLiteral(exclude)}.test(u)` : '';
  if (includeTest === 'true' && !excludeTest) return '()=>true';
  return `u=>(u=u.slice(0,${MAX_MATCHED_URL_LENGTH}).split('#')[0],${includeTest}${excludeTest})`;
}

/**
 * The scroll event's test (TriggerConfig `scrolled`), `(t,h)=>...` with t the scroll position and h the scrollable
 * distance: any of the configured thresholds, each within the spec's 2 px tolerance. Undefined without one.
 */
export function scrolledSource(scroll: SiteConfig['triggers']['scroll']): string | undefined {
  if (!scroll) return undefined;
  const { percent, pixelsFromTop, pixelsFromBottom } = scroll;
  const tests = [
    percent !== undefined && `t+2>=h*${percent}/100`,
    pixelsFromTop !== undefined && `t+2>=${pixelsFromTop}`,
    pixelsFromBottom !== undefined && `h-t<=${pixelsFromBottom + 2}`,
  ].filter(Boolean);
  return tests.length ? `(t,h)=>${tests.join('||')}` : undefined;
}

function triggersSource(config: SiteConfig, compiled: CompiledSite): string {
  const { triggers } = config;
  const value = {
    anyOf: compiled.triggerEvents,
    watch: compiled.segmentEvents,
    delayMs: Math.round(triggers.delaySeconds * 1000),
    clickSelector: triggers.clickSelector,
    mousedownSelector: triggers.mousedownSelector,
    intervalTicks: triggers.intervalSeconds,
    persist: triggers.persist,
  };
  const scrolled = scrolledSource(triggers.scroll);
  return scrolled ? `${jsLiteral(value).slice(0, -1)},scrolled:${scrolled}}` : jsLiteral(value);
}

/** The child window page: on the site's own `childWindowOrigin` when it has one, else under the shared serverSyncUrl. */
export function childWindowUrlOf(config: SiteConfig): string {
  const base = config.childWindowOrigin ?? stripTrailingSlashes(config.serverSyncUrl);
  return `${base}/sites/${encodeURIComponent(config.hash)}/child-window.html`;
}

/** The prompts joined once at build time, in the order push.js inserts them (absent ones are empty). */
export function promptBundle(prompts: PromptMarkup): PromptBundle {
  const roots = [prompts.chicklet, prompts.contextBox, prompts.alreadySubscribed, prompts.blocked, prompts.subscribeFailed];
  roots.push(prompts.brandingModal ?? '', prompts.mobileBox ?? '', prompts.homeScreen ?? '');
  return { html: roots.join(''), css: prompts.css };
}

/** `pushkit:core-site`'s fields (what push.js's core reads); the chunks read their own full copy. */
const CORE_FIELDS = new Set<string>(CORE_SITE_FIELDS);

/**
 * Source of the ES module `pushkit:site`: `export const site = {...}` (a SiteModule). `core`: `pushkit:core-site`,
 * the module push.js's core imports, only the fields the core reads (runtime/site-module.ts CORE_SITE_FIELDS): the chunks' own copy carries the rest (the prompt
 * markup, the shop segments, the worker paths, the texts).
 */
export function generateSiteModule(config: SiteConfig, compiled: CompiledSite, prompts: PromptMarkup, core?: boolean): string {
  const serverSyncUrl = stripTrailingSlashes(config.serverSyncUrl);
  const segments = config.segmentations.map(
    (segment, index) => `{sid:${jsLiteral(segment.sid)},vn:${segment.vn},test:${compiled.segmentTests[index]}}`,
  );
  const clickSegments = config.clickSegmentations.map((segment) =>
    jsLiteral({ sid: segment.sid, vn: segment.vn, selector: segment.selector }),
  );
  const shopSegments = config.shopifySegmentations.map(
    (segment, index) =>
      `{sid:${jsLiteral(segment.sid)},vn:${segment.vn},event:${jsLiteral(segment.event)},test:${compiled.shopSegmentTests[index]}}`,
  );
  const fields = (
    [
      ['hash', jsLiteral(config.hash)],
      ['companyName', jsLiteral(config.companyName)],
      ['origin', jsLiteral(config.origin)],
      ['serverSyncUrl', jsLiteral(serverSyncUrl)],
      ['servicesServerUrl', jsLiteral(stripTrailingSlashes(config.servicesServerURL ?? serverSyncUrl))],
      ['manifestUrl', jsLiteral(config.manifestUrl)],
      ['swPath', jsLiteral(config.swPath)],
      ['firefoxSwPath', jsLiteral(config.firefoxSwPath)],
      ['swScope', jsLiteral(config.swScope)],
      ['vapidPublicKey', jsLiteral(config.vapidPublicKey)],
      ['vapidKeyHead', jsLiteral(config.vapidPublicKey.slice(0, 20))],
      ...(config.safariWebsitePushId && config.safariWebServiceUrl
        ? ([
            ['safariWebsitePushId', jsLiteral(config.safariWebsitePushId)],
            ['safariWebServiceUrl', jsLiteral(stripTrailingSlashes(config.safariWebServiceUrl))],
          ] as Array<[keyof SiteModule, string]>)
        : []),
      ...(config.customDimensions.length ? [['customDimensions', jsLiteral(config.customDimensions)] as [keyof SiteModule, string]] : []),
      ['childWindowUrl', jsLiteral(childWindowUrlOf(config))],
      ['isInactive', String(config.isInactive)],
      ['urlQualifies', urlQualifiesSource(config, compiled)],
      ['triggers', triggersSource(config, compiled)],
      ['segments', `[${segments.join(',')}]`],
      ['clickSegments', `[${clickSegments.join(',')}]`],
      ['shopSegments', `[${shopSegments.join(',')}]`],
      ['prompts', jsLiteral(promptBundle(prompts))],
    ] satisfies Array<[keyof SiteModule, string]>
  )
    // the core's copy leaves out a false isInactive (read as undefined) and empty lists its flags never read
    .filter(([key, value]) => !core || (CORE_FIELDS.has(key) && value !== 'false' && value !== '[]'));
  return `export const site = {\n${fields.map(([key, value]) => `  ${key}: ${value},`).join('\n')}\n};\n`;
}

/** Source of the ES module `pushkit:worker-site`: `export const workerSite = {...}` (a WorkerSiteModule). */
export function generateWorkerSiteModule(config: SiteConfig): string {
  const value = {
    hash: config.hash,
    origin: config.origin,
    serverSyncUrl: stripTrailingSlashes(config.serverSyncUrl),
    vapidPublicKey: config.vapidPublicKey,
    swScope: config.swScope,
    iconUrl: config.style.iconUrl,
    companyName: config.companyName,
    notificationClickOrigins: config.notificationClickOrigins,
  };
  return `export const workerSite = ${jsLiteral(value)};\n`;
}
