// How the condition and trigger compilers stop at the first error: they throw a ConditionFailure, which
// compileCondition and compileTriggerExpression catch and return as a ConditionError of the expression.
import type { ConditionError } from '../contract/conditions.ts';
import { compilerMessage, type CompilerErrorDetails, type ConditionErrorCode, type TriggerErrorCode } from './errors.ts';

type ExpressionErrorCode = ConditionErrorCode | TriggerErrorCode;

export class ConditionFailure extends Error {
  constructor(
    readonly code: ExpressionErrorCode,
    readonly column: number,
    message: string,
  ) {
    super(message);
    this.name = 'ConditionFailure';
  }

  errorOf(expression: string): ConditionError {
    return { code: this.code, message: this.message, column: this.column, expression };
  }
}

/** A ConditionFailure with the catalogue's message for `code`. */
export function conditionFailure<C extends ExpressionErrorCode>(
  code: C,
  column: number,
  ...details: CompilerErrorDetails<C>
): ConditionFailure {
  return new ConditionFailure(code, column, compilerMessage(code, ...details));
}
