// Validation of a site config, in two steps: the zod schema (shapes, value rules and defaults), then the
// compilation of every expression (compile-expressions.ts). A valid config comes back with its compiled forms.
import type { z } from 'zod';
import type { CompiledSite } from '../compiler/compiled-site.ts';
import { compileExpressions } from './compile-expressions.ts';
import { configProblem, type ConfigErrorCode, type ConfigProblem } from './errors.ts';
import { siteConfigSchema, type SiteConfig } from './schema.ts';
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
  if (config.vapidSubject !== undefined) return [];
  const subject = derivedVapidSubject(config.origin);
  return isAcceptedVapidSubject(subject) ? [] : [configProblem('W_VAPID_SUBJECT_DERIVED', 'vapidSubject', { subject })];
}

export function validateConfig(raw: unknown): ConfigValidation {
  const result = siteConfigSchema.safeParse(raw);
  if (!result.success) return { ok: false, problems: problemsOf(result.error) };
  const expressions = compileExpressions(result.data);
  if (!expressions.ok) return { ok: false, problems: expressions.problems };
  const warnings = [...jsonStringWarnings(raw as Record<string, unknown>), ...vapidSubjectWarnings(result.data)];
  return { ok: true, config: result.data, compiled: expressions.compiled, warnings };
}
