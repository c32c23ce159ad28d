// Segment condition language (docs/conditions.md): parsed at build time into a plain JS predicate.
import type { ConditionError } from '../contract/conditions.ts';
import { generateCondition, type ConditionScope } from './condition-codegen.ts';
import { ConditionFailure } from './condition-failure.ts';
import { parseCondition } from './condition-parser.ts';

export type { ConditionScope } from './condition-codegen.ts';

export type CompiledCondition = { ok: true; js: string } | { ok: false; error: ConditionError };

/** Compiles a condition expression into the source of a JS arrow function `(c) => boolean`. */
export function compileCondition(source: string, scope: ConditionScope): CompiledCondition {
  try {
    return { ok: true, js: generateCondition(parseCondition(source), scope) };
  } catch (error) {
    if (error instanceof ConditionFailure) return { ok: false, error: error.errorOf(source) };
    throw error;
  }
}
