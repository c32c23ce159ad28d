// The second step of validation, after the schema: every expression of the config is compiled once, here. A
// refusal becomes a problem at its field; the compiled forms go on to the build (compiler/site-module.ts).
import type { CompiledSite } from '../compiler/compiled-site.ts';
import { compileCondition } from '../compiler/segment-condition.ts';
import { compileTriggerExpression } from '../compiler/trigger-expression.ts';
import { compilePatternError, compileUrlList } from '../compiler/url-patterns.ts';
import { TRIGGER_EVENTS } from '../contract/trigger-events.ts';
import { configProblem, type ConfigProblem } from './errors.ts';
import type { SiteConfig } from './schema.ts';

export type CompiledExpressions = { ok: true; compiled: CompiledSite } | { ok: false; problems: ConfigProblem[] };

export function compileExpressions(config: SiteConfig): CompiledExpressions {
  const problems: ConfigProblem[] = [];

  // in the schema's field order, as the schema's own problems are listed
  const segmentTests = config.segmentations.map((segment, index) => {
    const compiled = compileCondition(segment.ss, 'page');
    if (compiled.ok) return compiled.js;
    problems.push(configProblem('E_CONDITION', `segmentations.${index}.ss`, { error: compiled.error }));
    return '';
  });
  const shopSegmentTests = config.shopifySegmentations.map((segment, index) => {
    if (segment.ss === undefined) return '()=>true';
    const compiled = compileCondition(segment.ss, 'shop');
    if (compiled.ok) return compiled.js;
    problems.push(configProblem('E_CONDITION', `shopifySegmentations.${index}.ss`, { error: compiled.error }));
    return '';
  });

  const urlList = (field: 'includeUrls' | 'excludeUrls'): RegExp | undefined => {
    const before = problems.length;
    config[field].forEach((pattern, index) => {
      const problem = compilePatternError(pattern);
      if (problem) problems.push(configProblem('E_URL_PATTERN', `${field}.${index}`, { problem }));
    });
    return problems.length === before ? compileUrlList(config[field]) : undefined;
  };
  const include = urlList('includeUrls');
  const exclude = urlList('excludeUrls');

  const trigger = compileTriggerExpression(config.triggers.when);
  if (!trigger.ok) problems.push(configProblem('E_TRIGGER', 'triggers.when', { error: trigger.error }));

  if (problems.length > 0 || !trigger.ok) return { ok: false, problems };
  // the events segment conditions read (`event.scroll` compiles to `g(c.events,"scroll")`) beyond the trigger's
  const segmentEvents = TRIGGER_EVENTS.filter(
    (kind) => !trigger.anyOf.includes(kind) && segmentTests.some((js) => js.includes(`g(c.events,${JSON.stringify(kind)})`)),
  );
  return { ok: true, compiled: { include, exclude, triggerEvents: trigger.anyOf, segmentEvents, segmentTests, shopSegmentTests } };
}

/** A config field as the JSON holds it: a list, or (click and shop segmentations) a JSON string of one. */
function rawList(value: unknown): unknown[] {
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return [];
    }
  }
  return Array.isArray(value) ? value : [];
}

function rawString(value: unknown, key: string): string | undefined {
  const field = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof field === 'string' && field.length > 0 ? field : undefined;
}

/**
 * The problems of every expression of a config the schema refused, read from its JSON as written: the schema's
 * type error elsewhere (a number where a string belongs) must not hide a bad URL pattern or condition, so each
 * string where an expression belongs is compiled here and every problem of the file is listed at once.
 */
export function rawExpressionProblems(raw: unknown): ConfigProblem[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [];
  const config = raw as Record<string, unknown>;
  const problems: ConfigProblem[] = [];
  const conditions = (field: 'segmentations' | 'shopifySegmentations', scope: 'page' | 'shop') =>
    rawList(config[field]).forEach((segment, index) => {
      const ss = rawString(segment, 'ss');
      const compiled = ss === undefined ? undefined : compileCondition(ss, scope);
      if (compiled && !compiled.ok) problems.push(configProblem('E_CONDITION', `${field}.${index}.ss`, { error: compiled.error }));
    });
  conditions('segmentations', 'page');
  conditions('shopifySegmentations', 'shop');
  for (const field of ['includeUrls', 'excludeUrls'] as const) {
    rawList(config[field]).forEach((pattern, index) => {
      const problem = typeof pattern === 'string' && pattern.length > 0 ? compilePatternError(pattern) : undefined;
      if (problem) problems.push(configProblem('E_URL_PATTERN', `${field}.${index}`, { problem }));
    });
  }
  const when = rawString(config.triggers, 'when');
  const trigger = when === undefined ? undefined : compileTriggerExpression(when);
  if (trigger && !trigger.ok) problems.push(configProblem('E_TRIGGER', 'triggers.when', { error: trigger.error }));
  return problems;
}
