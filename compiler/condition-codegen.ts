// Code generation for the segment condition language: AST -> source of a plain `(c)=>boolean` arrow.
// Everything from the config reaches the output only through safeStringLiteral or as a number.
import { conditionFailure } from './condition-failure.ts';
import type { ConditionNode } from './condition-parser.ts';
import { CART_EVENT_FIELDS, ORDER_EVENT_FIELDS } from '../contract/shop-events.ts';

export type ConditionScope = 'page' | 'shop';
type ValueType = 'string' | 'number' | 'boolean';
/** `value` is set for a literal: conversions of literals are done here, from the value, not from its code. */
type Emitted = { js: string; type: ValueType; literal: boolean; value?: string | number | boolean };

const PAGE_FIELDS: Record<string, { js: string; type: ValueType }> = {
  url: { js: 'c.url', type: 'string' },
  path: { js: 'c.path', type: 'string' },
  referrer: { js: 'c.referrer', type: 'string' },
  visitCount: { js: 'c.visitCount', type: 'number' },
  timeOnSite: { js: 'c.timeOnSiteSeconds', type: 'number' },
};
const PAGE_MAPS: Record<string, { object: string; type: ValueType }> = {
  query: { object: 'c.query', type: 'string' },
  tag: { object: 'c.tags', type: 'string' },
  event: { object: 'c.events', type: 'boolean' },
};
/** Spec section 3: the cart event data fields and the order event data fields (contract/shop-events.ts). */
export const SHOP_FIELDS: Record<string, ValueType> = { ...CART_EVENT_FIELDS, ...ORDER_EVENT_FIELDS };

/** JSON.stringify plus the characters that would end a <script> element or a JS line in older engines. */
export function safeStringLiteral(value: string): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Own-property read, so names like `constructor` or `__proto__` never reach Object.prototype. */
const OWN_GETTER = 'g=(o,k)=>o&&Object.prototype.hasOwnProperty.call(o,k)?o[k]:void 0';

/** A number as JS code; negative numbers in parentheses so `-` never joins the operator before it. */
function numberLiteral(value: number): string {
  return value < 0 ? `(${value})` : String(value);
}

export function generateCondition(tree: ConditionNode, scope: ConditionScope): string {
  let usesGetter = false;

  function variable(name: string, column: number): Emitted {
    if (scope === 'shop') {
      const type = Object.hasOwn(SHOP_FIELDS, name) ? SHOP_FIELDS[name] : undefined;
      if (!type) throw conditionFailure('E_CONDITION_UNKNOWN_VARIABLE', column, { name });
      return { js: `c[${safeStringLiteral(name)}]`, type, literal: false };
    }
    if (Object.hasOwn(PAGE_FIELDS, name)) return { ...PAGE_FIELDS[name]!, literal: false };
    const dot = name.indexOf('.');
    const head = dot < 0 ? name : name.slice(0, dot);
    const map = Object.hasOwn(PAGE_MAPS, head) ? PAGE_MAPS[head] : undefined;
    if (!map) throw conditionFailure('E_CONDITION_UNKNOWN_VARIABLE', column, { name });
    const key = dot < 0 ? '' : name.slice(dot + 1);
    if (!key)
      throw conditionFailure('E_CONDITION_NAME_REQUIRED', column, { map: head, example: head === 'event' ? 'scroll' : 'utm_source' });
    usesGetter = true;
    const read = `g(${map.object},${safeStringLiteral(key)})`;
    return { js: map.type === 'boolean' ? `!!${read}` : read, type: map.type, literal: false };
  }

  function as(value: Emitted, type: ValueType): string {
    if (value.literal && value.type === type) return value.js;
    if (type === 'boolean') return value.type === 'boolean' ? value.js : `!!(${value.js})`;
    if (value.value !== undefined) {
      // as the runtime reads a value: text that is not a number is 0, a number as text is String(number)
      if (type === 'number') return numberLiteral(Number(value.value) || 0);
      return safeStringLiteral(String(value.value));
    }
    if (type === 'number') return `(+${value.js}||0)`;
    // `[v]+""` is String(v ?? "") for every value a context holds (no symbols), without the helper variable
    // esbuild's ES2017 lowering of `??` would add to each predicate.
    return `([${value.js}]+"")`;
  }

  function emit(node: ConditionNode): Emitted {
    switch (node.type) {
      case 'string':
        return { js: safeStringLiteral(node.value), type: 'string', literal: true, value: node.value };
      case 'number':
        return { js: numberLiteral(node.value), type: 'number', literal: true, value: node.value };
      case 'boolean':
        return { js: String(node.value), type: 'boolean', literal: true, value: node.value };
      case 'variable':
        return variable(node.name, node.column);
      case 'not':
        return { js: `!${asCondition(node.operand)}`, type: 'boolean', literal: false };
      case 'and':
      case 'or':
        return {
          js: `(${asCondition(node.left)}${node.type === 'and' ? '&&' : '||'}${asCondition(node.right)})`,
          type: 'boolean',
          literal: false,
        };
      case 'compare':
        return { js: compare(node), type: 'boolean', literal: false };
    }
  }

  function asCondition(node: ConditionNode): string {
    const value = emit(node);
    return value.type === 'boolean' ? value.js : as(value, 'boolean');
  }

  function compare(node: Extract<ConditionNode, { type: 'compare' }>): string {
    const left = emit(node.left);
    const right = emit(node.right);
    const { operator } = node;
    if (operator === 'matches') {
      if (node.right.type !== 'string') throw conditionFailure('E_CONDITION_MATCHES_NEEDS_PATTERN', node.right.column);
      try {
        new RegExp(node.right.value);
      } catch (error) {
        throw conditionFailure('E_CONDITION_INVALID_REGEX', node.right.column, { reason: (error as Error).message });
      }
      requireText(left, node);
      return `new RegExp(${right.js}).test(${as(left, 'string')})`;
    }
    if (operator === 'contains' || operator === 'startsWith' || operator === 'endsWith') {
      requireText(left, node);
      requireText(right, node);
      const method = operator === 'contains' ? 'includes' : operator;
      return `${as(left, 'string')}.${method}(${as(right, 'string')})`;
    }
    const type: ValueType =
      left.type === 'boolean' || right.type === 'boolean'
        ? 'boolean'
        : left.type === 'number' || right.type === 'number'
          ? 'number'
          : 'string';
    if (type === 'boolean' && operator !== '==' && operator !== '!=') {
      throw conditionFailure('E_CONDITION_BOOLEAN_ORDER', node.column, { operator });
    }
    const js = operator === '==' ? '===' : operator === '!=' ? '!==' : operator;
    return `(${as(left, type)}${js}${as(right, type)})`;
  }

  function requireText(value: Emitted, node: Extract<ConditionNode, { type: 'compare' }>): void {
    if (value.type === 'boolean') {
      throw conditionFailure('E_CONDITION_NEEDS_TEXT', node.column, { operator: node.operator });
    }
  }

  const body = asCondition(tree);
  return usesGetter ? `(c,${OWN_GETTER})=>${body}` : `(c)=>${body}`;
}
