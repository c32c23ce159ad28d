// Generates the source of the modules `pushkit:site` and `pushkit:worker-site` (runtime/site-module.ts):
// constants and precompiled predicates, so the browser never parses a pattern, condition or expression.
import type { SiteConfig } from '../config/schema.ts';
import type { PromptMarkup } from '../runtime/site-module.ts';
import { compileUrlList } from './url-patterns.ts';
import { compileCondition, type ConditionScope } from './segment-condition.ts';
import { compileTriggerExpression } from './trigger-expression.ts';

export class SiteModuleError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

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
 * The RegExp as `new RegExp("source", "flags")`: the source travels as a safe string literal, since rewriting
 * `<` inside a RegExp literal would break lookbehinds `(?<=` and change escapes such as `\<`.
 */
function regexLiteral(regex: RegExp): string {
  return `new RegExp(${jsLiteral(regex.source)},${jsLiteral(regex.flags)})`;
}

function urlQualifiesSource(config: SiteConfig): string {
  const include = compileUrlList(config.includeUrls);
  const exclude = compileUrlList(config.excludeUrls);
  const includeTest = config.includeUrls.includes('*') ? 'true' : include ? `${regexLiteral(include)}.test(u)` : 'false';
  const excludeTest = exclude ? `&&!${regexLiteral(exclude)}.test(u)` : '';
  if (includeTest === 'true' && !excludeTest) return '()=>true';
  return `(url)=>{const u=url.split('#')[0];return ${includeTest}${excludeTest}}`;
}

function conditionSource(source: string | undefined, scope: ConditionScope, path: string): string {
  if (source === undefined) return '()=>true';
  const compiled = compileCondition(source, scope);
  if (!compiled.ok) throw new SiteModuleError(path, `${compiled.message} (at position ${compiled.position})`);
  return compiled.js;
}

function triggersSource(config: SiteConfig): string {
  const { triggers } = config;
  const compiled = compileTriggerExpression(triggers.when);
  if (!compiled.ok) throw new SiteModuleError('triggers.when', `${compiled.message} (at position ${compiled.position})`);
  const value = {
    anyOf: compiled.anyOf,
    delayMs: Math.round(triggers.delaySeconds * 1000),
    clickSelector: triggers.clickSelector,
    mousedownSelector: triggers.mousedownSelector,
    intervalTicks: triggers.intervalSeconds,
    scroll: triggers.scroll,
    persist: triggers.persist,
  };
  return jsLiteral(value);
}

export function childWindowUrlOf(config: SiteConfig): string {
  return `${stripTrailingSlashes(config.serverSyncUrl)}/sites/${encodeURIComponent(config.hash)}/child-window.html`;
}

/** Source of the ES module `pushkit:site`: `export const site = {...}` (a SiteModule). */
export function generateSiteModule(config: SiteConfig, prompts: PromptMarkup): string {
  const serverSyncUrl = stripTrailingSlashes(config.serverSyncUrl);
  const segments = config.segmentations.map(
    (segment, index) =>
      `{sid:${jsLiteral(segment.sid)},vn:${segment.vn},test:${conditionSource(segment.ss, 'page', `segmentations.${index}.ss`)}}`,
  );
  const clickSegments = config.clickSegmentations.map((segment) =>
    jsLiteral({ sid: segment.sid, vn: segment.vn, selector: segment.selector }),
  );
  const shopSegments = config.shopifySegmentations.map(
    (segment, index) =>
      `{sid:${jsLiteral(segment.sid)},vn:${segment.vn},event:${jsLiteral(segment.event)},test:${conditionSource(segment.ss, 'shop', `shopifySegmentations.${index}.ss`)}}`,
  );
  const fields: Array<[string, string]> = [
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
    ...(config.safariWebsitePushId ? [['safariWebsitePushId', jsLiteral(config.safariWebsitePushId)] as [string, string]] : []),
    ['childWindowUrl', jsLiteral(childWindowUrlOf(config))],
    ['isInactive', String(config.isInactive)],
    ['urlQualifies', urlQualifiesSource(config)],
    ['triggers', triggersSource(config)],
    ['segments', `[${segments.join(',')}]`],
    ['clickSegments', `[${clickSegments.join(',')}]`],
    ['shopSegments', `[${shopSegments.join(',')}]`],
    ['prompts', jsLiteral(prompts)],
  ];
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
