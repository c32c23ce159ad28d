// Trigger expressions (spec section 5): event names joined by and/or, with parentheses. Every and/or is read
// as or, so the result is the list of events any one of which shows the prompt.
import { TRIGGER_EVENTS } from '../contract/trigger-events.ts';

export type CompiledTrigger = { ok: true; anyOf: string[] } | { ok: false; message: string; position: number };

type TriggerToken = { text: string; column: number };

class TriggerError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

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
    if (!token) throw new TriggerError(after ? `expected an event after "${after.text}"` : 'expected an event name', end);
    if (token.text === '(') {
      index++;
      expression();
      const close = tokens[index];
      if (close?.text !== ')') throw new TriggerError(`expected ")" to close "(" at column ${token.column}`, close?.column ?? end);
      index++;
      return;
    }
    if (!/^[A-Za-z_]/.test(token.text) || isJoiner(token)) {
      throw new TriggerError(
        after ? `expected an event after "${after.text}", found "${token.text}"` : `unexpected "${token.text}"`,
        token.column,
      );
    }
    if (!(TRIGGER_EVENTS as readonly string[]).includes(token.text)) {
      throw new TriggerError(`unknown trigger event "${token.text}" (known: ${TRIGGER_EVENTS.join(', ')})`, token.column);
    }
    if (!names.includes(token.text)) names.push(token.text);
    index++;
  }

  try {
    expression();
    const rest = tokens[index];
    if (rest) throw new TriggerError(`unexpected "${rest.text}"`, rest.column);
    return { ok: true, anyOf: names };
  } catch (error) {
    if (error instanceof TriggerError) return { ok: false, message: error.message, position: error.position };
    throw error;
  }
}
