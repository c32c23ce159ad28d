// Segment condition language (placeholder until the compiler lands: every condition is false).
export type ConditionScope = 'page' | 'shop';

export type CompiledCondition =
  | { ok: true; js: string }
  | { ok: false; message: string; position: number };

/** Compiles a condition expression into the source of a JS arrow function `(c) => boolean`. */
export function compileCondition(_source: string, _scope: ConditionScope): CompiledCondition {
  return { ok: true, js: '()=>false' };
}
