import { describe, expect, it } from 'vitest';
import { compileTriggerExpression } from '../../compiler/trigger-expression.ts';
import { TRIGGER_EVENTS } from '../../contract/trigger-events.ts';

describe('compileTriggerExpression: every and/or is read as or', () => {
  it.each([
    ['delay', ['delay']],
    ['scroll and delay', ['scroll', 'delay']],
    ['scroll or delay', ['scroll', 'delay']],
    ['scroll AND delay Or click', ['scroll', 'delay', 'click']],
    ['(scroll or delay) and ecom.order or scroll', ['scroll', 'delay', 'ecom.order']],
    ['  leaveIntent  ', ['leaveIntent']],
    ['((load))', ['load']],
    [TRIGGER_EVENTS.join(' and '), [...TRIGGER_EVENTS]],
  ])('%s', (source, anyOf) => {
    expect(compileTriggerExpression(source)).toEqual({ ok: true, anyOf });
  });
});

describe('compileTriggerExpression: errors with their catalogue code and column', () => {
  it.each([
    ['', 'E_TRIGGER_EXPECTED_EVENT', 1],
    ['scroll and', 'E_TRIGGER_EXPECTED_EVENT', 11],
    ['scroll or )', 'E_TRIGGER_UNEXPECTED', 11],
    ['foo', 'E_TRIGGER_UNKNOWN_EVENT', 1],
    ['scroll or ecom.refund', 'E_TRIGGER_UNKNOWN_EVENT', 11],
    ['(scroll', 'E_TRIGGER_UNCLOSED_PARENTHESIS', 8],
    ['scroll )', 'E_TRIGGER_UNEXPECTED', 8],
    ['scroll delay', 'E_TRIGGER_UNEXPECTED', 8],
    ['scroll # delay', 'E_TRIGGER_UNEXPECTED', 8],
    ['and scroll', 'E_TRIGGER_UNEXPECTED', 1],
    ['constructor', 'E_TRIGGER_UNKNOWN_EVENT', 1],
  ])('%j -> %s at %i', (source, code, column) => {
    expect(compileTriggerExpression(source)).toMatchObject({ ok: false, error: { code, column, expression: source } });
  });

  it('names the known events in the message (docs/conditions.md)', () => {
    const compiled = compileTriggerExpression('foo');
    expect(compiled.ok ? undefined : compiled.error.message).toBe(`unknown trigger event "foo" (known: ${TRIGGER_EVENTS.join(', ')})`);
  });
});
