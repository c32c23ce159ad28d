// Segment condition language (docs/conditions.md): parsed at build time into a plain JS predicate.
import { generateCondition, type ConditionScope } from './condition-codegen.ts';
import { parseCondition } from './condition-parser.ts';
import { ConditionError } from './condition-tokenizer.ts';

export type { ConditionScope } from './condition-codegen.ts';

export type CompiledCondition = { ok: true; js: string } | { ok: false; message: string; position: number };

/** Compiles a condition expression into the source of a JS arrow function `(c) => boolean`. */
export function compileCondition(source: string, scope: ConditionScope): CompiledCondition {
  try {
    return { ok: true, js: generateCondition(parseCondition(source), scope) };
  } catch (error) {
    if (error instanceof ConditionError) return { ok: false, message: error.message, position: error.position };
    throw error;
  }
}
