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

describe('compileTriggerExpression: errors with message and column', () => {
  it.each([
    ['', 'expected an event name', 1],
    ['scroll and', 'expected an event after "and"', 11],
    ['scroll or )', 'expected an event after "or", found ")"', 11],
    [
      'foo',
      'unknown trigger event "foo" (known: load, click, mousedown, delay, interval, leaveIntent, scroll, subscribe, ecom.add_cart, ecom.order)',
      1,
    ],
    [
      'scroll or ecom.refund',
      'unknown trigger event "ecom.refund" (known: load, click, mousedown, delay, interval, leaveIntent, scroll, subscribe, ecom.add_cart, ecom.order)',
      11,
    ],
    ['(scroll', 'expected ")" to close "(" at column 1', 8],
    ['scroll )', 'unexpected ")"', 8],
    ['scroll delay', 'unexpected "delay"', 8],
    ['scroll # delay', 'unexpected "#"', 8],
    ['and scroll', 'unexpected "and"', 1],
    [
      'constructor',
      'unknown trigger event "constructor" (known: load, click, mousedown, delay, interval, leaveIntent, scroll, subscribe, ecom.add_cart, ecom.order)',
      1,
    ],
  ])('%j -> %s at %i', (source, message, position) => {
    expect(compileTriggerExpression(source)).toEqual({ ok: false, message, position });
  });
});
