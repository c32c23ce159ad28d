// Recursive-descent parser of the segment condition language. Precedence: not > comparisons > and > or.
import { conditionFailure } from './condition-failure.ts';
import { tokenize, type Token } from './condition-tokenizer.ts';

export type CompareOperator = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'contains' | 'startsWith' | 'endsWith' | 'matches';

export type ConditionNode =
  | { type: 'or' | 'and'; left: ConditionNode; right: ConditionNode; column: number }
  | { type: 'not'; operand: ConditionNode; column: number }
  | { type: 'compare'; operator: CompareOperator; left: ConditionNode; right: ConditionNode; column: number }
  | { type: 'string'; value: string; column: number }
  | { type: 'number'; value: number; column: number }
  | { type: 'boolean'; value: boolean; column: number }
  | { type: 'variable'; name: string; column: number };

const COMPARE_OPERATORS = new Set(['==', '!=', '<', '<=', '>', '>=', 'contains', 'startsWith', 'endsWith', 'matches']);

function describe(token: Token): string {
  return JSON.stringify(token.text);
}

export function parseCondition(source: string): ConditionNode {
  const tokens = tokenize(source);
  let index = 0;
  const peek = (): Token => tokens[index]!;
  const next = (): Token => tokens[index++]!;
  const isWord = (token: Token, word: string): boolean => token.kind === 'name' && token.value === word;

  function parseOr(): ConditionNode {
    let left = parseAnd();
    while (isWord(peek(), 'or')) {
      const operator = next();
      left = { type: 'or', left, right: parseAnd(operator), column: operator.column };
    }
    return left;
  }

  function parseAnd(after?: Token): ConditionNode {
    let left = parseComparison(after);
    while (isWord(peek(), 'and')) {
      const operator = next();
      left = { type: 'and', left, right: parseComparison(operator), column: operator.column };
    }
    return left;
  }

  function parseComparison(after?: Token): ConditionNode {
    const left = parseUnary(after);
    const token = peek();
    if ((token.kind === 'op' || token.kind === 'name') && COMPARE_OPERATORS.has(token.value)) {
      next();
      const right = parseUnary(token);
      return { type: 'compare', operator: token.value as CompareOperator, left, right, column: token.column };
    }
    return left;
  }

  function parseUnary(after?: Token): ConditionNode {
    if (isWord(peek(), 'not')) {
      const operator = next();
      return { type: 'not', operand: parseUnary(operator), column: operator.column };
    }
    return parsePrimary(after);
  }

  function parsePrimary(after?: Token): ConditionNode {
    const token = peek();
    if (token.kind === 'end') {
      throw after
        ? conditionFailure('E_CONDITION_EXPECTED_VALUE', token.column, { after: describe(after) })
        : conditionFailure('E_CONDITION_EXPECTED_CONDITION', token.column);
    }
    if (token.kind === 'op' && token.value === '(') {
      next();
      const inner = parseOr();
      const close = peek();
      if (close.kind !== 'op' || close.value !== ')') {
        const found = close.kind === 'end' ? 'the end' : describe(close);
        throw conditionFailure('E_CONDITION_UNCLOSED_PARENTHESIS', close.column, { open: token.column, found });
      }
      next();
      return inner;
    }
    if (token.kind === 'string') return (next(), { type: 'string', value: token.value, column: token.column });
    if (token.kind === 'number') return (next(), { type: 'number', value: token.value, column: token.column });
    if (token.kind === 'name' && !COMPARE_OPERATORS.has(token.value) && !['and', 'or', 'not'].includes(token.value)) {
      next();
      if (token.value === 'true' || token.value === 'false')
        return { type: 'boolean', value: token.value === 'true', column: token.column };
      return { type: 'variable', name: token.value, column: token.column };
    }
    throw after
      ? conditionFailure('E_CONDITION_EXPECTED_VALUE', token.column, { after: describe(after), found: describe(token) })
      : conditionFailure('E_CONDITION_UNEXPECTED_TOKEN', token.column, { token: describe(token) });
  }

  const tree = parseOr();
  const rest = peek();
  if (rest.kind !== 'end') throw conditionFailure('E_CONDITION_UNEXPECTED_TOKEN', rest.column, { token: describe(rest) });
  return tree;
}
