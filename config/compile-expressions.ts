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
