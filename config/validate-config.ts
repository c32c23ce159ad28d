// Validation of a site config, in two steps: the zod schema (shapes, value rules and defaults), then the
// compilation of every expression (compile-expressions.ts). A valid config comes back with its compiled forms.
import type { z } from 'zod';
import { BlockList, isIP } from 'node:net';
import type { CompiledSite } from '../compiler/compiled-site.ts';
import { isLocalHost, needsChildWindow } from '../compiler/features.ts';
import { compileExpressions, rawExpressionProblems } from './compile-expressions.ts';
import { configProblem, type ConfigErrorCode, type ConfigProblem } from './errors.ts';
import { isMixedContent, MIXED_CONTENT_FIELDS, siteConfigSchema, type SiteConfig } from './schema.ts';
import { derivedVapidSubject, isAcceptedVapidSubject } from './vapid-subject.ts';

export interface ValidatedConfig {
  config: SiteConfig;
  compiled: CompiledSite;
  warnings: ConfigProblem[];
}

export type ConfigValidation = ({ ok: true } & ValidatedConfig) | { ok: false; problems: ConfigProblem[] };

function fieldPath(path: readonly PropertyKey[]): string {
  return path.length ? path.map(String).join('.') : '(root)';
}

/** The catalogue code a schema rule tagged its issue with (`params: { code }`). */
function taggedCode(issue: z.core.$ZodIssue): ConfigErrorCode | undefined {
  if (issue.code !== 'custom') return undefined;
  const code = (issue.params as { code?: ConfigErrorCode } | undefined)?.code;
  return code;
}

/** One problem per zod issue, with unknown keys named one by one. */
function problemsOf(error: z.ZodError): ConfigProblem[] {
  return error.issues.flatMap((issue): ConfigProblem[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => configProblem('E_CONFIG_UNKNOWN_FIELD', fieldPath([...issue.path, key])));
    }
    if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message)) {
      return [configProblem('E_CONFIG_MISSING_FIELD', fieldPath(issue.path), { expected: issue.expected })];
    }
    const code = taggedCode(issue) ?? 'E_CONFIG_FIELD';
    return [{ code, path: fieldPath(issue.path), message: issue.message }];
  });
}

function jsonStringWarnings(raw: Record<string, unknown>): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  for (const field of ['clickSegmentations', 'shopifySegmentations']) {
    const value = raw[field];
    if (typeof value !== 'string') continue;
    try {
      JSON.parse(value);
    } catch {
      warnings.push(configProblem('W_SEGMENTATIONS_JSON', field));
    }
  }
  return warnings;
}

function vapidSubjectWarnings(config: SiteConfig): ConfigProblem[] {
  // a site on this machine (`push-kit init --yes`, a dev copy) is a development site: the warning comes once its
  // origin is a real host
  if (config.vapidSubject !== undefined || isLocalHost(new URL(config.origin).hostname)) return [];
  const subject = derivedVapidSubject(config.origin);
  return isAcceptedVapidSubject(subject) ? [] : [configProblem('W_VAPID_SUBJECT_DERIVED', 'vapidSubject', { subject })];
}

/**
 * The schema's checks across fields (an https origin calling an http provider) as the JSON holds them: zod skips
 * an object's refinements once a field of it has a type error, and such a problem must not hide behind one.
 */
function rawCrossFieldProblems(raw: unknown): ConfigProblem[] {
  if (typeof raw !== 'object' || raw === null) return [];
  const { origin } = raw as Record<string, unknown>;
  if (typeof origin !== 'string') return [];
  return MIXED_CONTENT_FIELDS.flatMap((field) => {
    const url = (raw as Record<string, unknown>)[field];
    return typeof url === 'string' && isMixedContent(origin, url)
      ? [configProblem('E_MIXED_CONTENT', field, { origin: new URL(origin).origin })]
      : [];
  });
}

/** A plain-http site (it gets the child window) without a child window origin of its own shares the provider's. */
function childWindowWarnings(config: SiteConfig): ConfigProblem[] {
  return needsChildWindow(config.origin) && !config.childWindowOrigin
    ? [configProblem('W_CHILD_WINDOW_SHARED_ORIGIN', 'childWindowOrigin')]
    : [];
}

/** Safari's legacy push needs Apple's push package service at safariWebServiceUrl, which the site hosts itself. */
function safariWarnings(config: SiteConfig): ConfigProblem[] {
  const { safariWebsitePushId: id, safariWebServiceUrl: url } = config;
  return id && url ? [configProblem('W_SAFARI_LEGACY_ELSEWHERE', 'safariWebServiceUrl', { url: url.replace(/\/+$/, ''), id })] : [];
}

/** Addresses the provider does not fetch feeds from unless listed: loopback, private, link-local, shared, unspecified. */
const PRIVATE_ADDRESSES = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  PRIVATE_ADDRESSES.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  PRIVATE_ADDRESSES.addSubnet(network, prefix, 'ipv6');

/**
 * A config feed the provider would refuse at its start unless `--allow-feed-hosts` lists its host (server/feeds/
 * feed-urls.ts): http, or a private address written as such. Only the provider knows its list, so it is a warning.
 */
function feedWarnings(config: SiteConfig): ConfigProblem[] {
  return config.feeds.flatMap((feed, index) => {
    const url = new URL(feed.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const family = isIP(host);
    const isPrivate =
      host === 'localhost' ||
      host.endsWith('.localhost') ||
      (family !== 0 && PRIVATE_ADDRESSES.check(host, family === 6 ? 'ipv6' : 'ipv4'));
    const why = isPrivate ? `${host} is a private address` : url.protocol === 'http:' ? 'is http, not https' : undefined;
    return why ? [configProblem('W_FEED_NEEDS_LISTING', `feeds.${index}.url`, { why, host: url.host })] : [];
  });
}

export function validateConfig(raw: unknown): ConfigValidation {
  const result = siteConfigSchema.safeParse(raw);
  if (!result.success) {
    // the schema stops at its errors; cross-field rules and expressions are still checked from the JSON so none hides behind them
    const problems = problemsOf(result.error);
    const seen = new Set(problems.map((problem) => problem.path));
    const more = [...rawCrossFieldProblems(raw), ...rawExpressionProblems(raw)].filter((problem) => !seen.has(problem.path));
    return { ok: false, problems: [...problems, ...more] };
  }
  const expressions = compileExpressions(result.data);
  if (!expressions.ok) return { ok: false, problems: expressions.problems };
  // every warning of a config is found here, so `validate` reports what `build` would (`--strict` fails on them)
  const warnings = [
    ...jsonStringWarnings(raw as Record<string, unknown>),
    ...vapidSubjectWarnings(result.data),
    ...childWindowWarnings(result.data),
    ...safariWarnings(result.data),
    ...feedWarnings(result.data),
  ];
  return { ok: true, config: result.data, compiled: expressions.compiled, warnings };
}
