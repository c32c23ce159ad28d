// Condition errors as every surface shows them (CLI, wizard, owner API, dashboard), and the owner API's check of a
// condition as it is typed: POST /api/v1/sites/:name/conditions/check.

/** A segment condition or trigger expression the compiler refuses: what is wrong and where (1-based column). */
export interface ConditionError {
  /** The compiler's catalogue code (compiler/errors.ts), e.g. `E_CONDITION_UNKNOWN_VARIABLE`. */
  code: string;
  message: string;
  column: number;
  /** The expression as written. */
  expression: string;
}

/** The one way a condition error is written: `expected a value after "and" at column 17`. */
export function formatConditionError(error: Pick<ConditionError, 'message' | 'column'>): string {
  return `${error.message} at column ${error.column}`;
}

export interface ConditionCheckRequest {
  condition: string;
}

export type ConditionCheckReply = { ok: true } | { ok: false; error: Pick<ConditionError, 'code' | 'message' | 'column'> };

export const CONDITION_MAX_LENGTH = 2000;
