// Trigger expressions (spec section 5): event names joined by and/or, with parentheses. Every and/or is read
// as or, so the result is the list of events any one of which shows the prompt.
import { TRIGGER_EVENTS } from '../contract/trigger-events.ts';
import type { ConditionError } from '../contract/conditions.ts';
import { ConditionFailure, conditionFailure } from './condition-failure.ts';

export type CompiledTrigger = { ok: true; anyOf: string[] } | { ok: false; error: ConditionError };

type TriggerToken = { text: string; column: number };

function tokenize(source: string): TriggerToken[] {
  const tokens: TriggerToken[] = [];
  const pattern = /\s+|[()]|[A-Za-z_][A-Za-z0-9_.]*|./gy;
  for (let match = pattern.exec(source); match; match = pattern.exec(source)) {
    if (!/^\s+$/.test(match[0])) tokens.push({ text: match[0], column: match.index + 1 });
  }
  return tokens;
}

const isJoiner = (token: TriggerToken | undefined): boolean => !!token && /^(and|or)$/i.test(token.text);

export function compileTriggerExpression(source: string): CompiledTrigger {
  const tokens = tokenize(source);
  const end = source.length + 1;
  const names: string[] = [];
  let index = 0;

  function expression(after?: TriggerToken): void {
    operand(after);
    while (isJoiner(tokens[index])) operand(tokens[index++]);
  }

  function operand(after?: TriggerToken): void {
    const token = tokens[index];
    if (!token) throw conditionFailure('E_TRIGGER_EXPECTED_EVENT', end, { after: after?.text });
    if (token.text === '(') {
      index++;
      expression();
      const close = tokens[index];
      if (close?.text !== ')') throw conditionFailure('E_TRIGGER_UNCLOSED_PARENTHESIS', close?.column ?? end, { open: token.column });
      index++;
      return;
    }
    if (!/^[A-Za-z_]/.test(token.text) || isJoiner(token)) {
      throw conditionFailure('E_TRIGGER_UNEXPECTED', token.column, { token: token.text, after: after?.text });
    }
    if (!(TRIGGER_EVENTS as readonly string[]).includes(token.text)) {
      throw conditionFailure('E_TRIGGER_UNKNOWN_EVENT', token.column, { name: token.text, known: TRIGGER_EVENTS });
    }
    if (!names.includes(token.text)) names.push(token.text);
    index++;
  }

  try {
    expression();
    const rest = tokens[index];
    if (rest) throw conditionFailure('E_TRIGGER_UNEXPECTED', rest.column, { token: rest.text });
    return { ok: true, anyOf: names };
  } catch (error) {
    if (error instanceof ConditionFailure) return { ok: false, error: error.errorOf(source) };
    throw error;
  }
}
