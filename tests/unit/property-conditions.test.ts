// Property tests of the segment condition and trigger expression compilers (docs/conditions.md): random
// condition trees with hostile string literals are printed to source, compiled, and the generated predicate
// must agree with a reference evaluator written here on random visitor contexts; garbage gets a clean error.
import { CART_EVENT_FIELDS, ORDER_EVENT_FIELDS } from '../../contract/shop-events.ts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileCondition, type ConditionScope } from '../../compiler/segment-condition.ts';
import { compileTriggerExpression } from '../../compiler/trigger-expression.ts';
import { TRIGGER_EVENTS } from '../../contract/trigger-events.ts';
import { hostileString, HOSTILE_SNIPPETS } from '../support/hostile-strings.ts';

type Kind = 'string' | 'number' | 'boolean';
type Op = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'contains' | 'startsWith' | 'endsWith' | 'matches';
type Node =
  | { t: 'str'; value: string }
  | { t: 'num'; text: string }
  | { t: 'bool'; value: boolean }
  | { t: 'var'; name: string }
  | { t: 'not'; operand: Node }
  | { t: 'and' | 'or'; left: Node; right: Node }
  | { t: 'cmp'; op: Op; left: Node; right: Node };

const PAGE_VARS: Record<string, Kind> = { url: 'string', path: 'string', referrer: 'string', visitCount: 'number', timeOnSite: 'number' };
const SHOP_VARS: Record<string, Kind> = { ...CART_EVENT_FIELDS, ...ORDER_EVENT_FIELDS };
/** Map keys after query./tag./event., including names of Object.prototype members. */
const KEYS = ['a', 'utm_source', 'x-y', 'a.b', '$', 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'Z9'];
const OPS: Op[] = ['==', '!=', '<', '<=', '>', '>=', 'contains', 'startsWith', 'endsWith', 'matches'];
/** Regular expressions, valid and not, with characters that must not break the generated code. */
const REGEXES = [
  '^/blog',
  'a|b',
  '</script>',
  '\u2028',
  '`${x}`',
  '(?<=a)b',
  '(?<!<)b',
  '[<>]',
  '\\d+',
  '\\',
  '(',
  '[',
  'a{2',
  '*/',
  "'",
  '"',
  '\\u0041',
  '.*',
];
const NUMBER_TEXTS = ['0', '-0', '5', '-1', '2.5', '-12.75', '1.50', '007', '99999999999999999999'];
/** Text values of a context that read as numbers in many ways. */
const NUMBERISH = ['', '5', ' 5 ', '-1', '2.5', '0x1A', '1e3', 'Infinity', 'abc', '0', '007', '1.50'];

// --- printing a tree as condition source --------------------------------------------------------------------

/** A quoted string in the condition language: `"` and `\` escaped, other characters raw or as \uXXXX. */
function quote(value: string, escapeMode: number): string {
  let out = '"';
  for (const ch of value) {
    for (let i = 0; i < ch.length; i++) {
      const unit = ch[i]!;
      const code = unit.charCodeAt(0);
      if (unit === '"') out += '\\"';
      else if (unit === '\\') out += '\\\\';
      else if (unit === '/' && escapeMode === 1) out += '\\/';
      else if (unit === '\n' && escapeMode === 1) out += '\\n';
      else if (escapeMode === 2 || (escapeMode === 1 && (code < 0x20 || code > 0x7e))) out += `\\u${code.toString(16).padStart(4, '0')}`;
      else out += unit;
    }
  }
  return `${out}"`;
}

const LEVEL = { or: 0, and: 1, cmp: 2, not: 3, primary: 4 } as const;
function levelOf(node: Node): number {
  if (node.t === 'or' || node.t === 'and' || node.t === 'cmp' || node.t === 'not') return LEVEL[node.t];
  return LEVEL.primary;
}

function print(node: Node, escapeMode: number): string {
  const wrap = (child: Node, min: number) => (levelOf(child) >= min ? print(child, escapeMode) : `(${print(child, escapeMode)})`);
  switch (node.t) {
    case 'str':
      return quote(node.value, escapeMode);
    case 'num':
      return node.text;
    case 'bool':
      return String(node.value);
    case 'var':
      return node.name;
    case 'not':
      return `not ${wrap(node.operand, LEVEL.not)}`;
    case 'and':
    case 'or':
      return `${wrap(node.left, LEVEL[node.t])} ${node.t} ${wrap(node.right, LEVEL[node.t] + 1)}`;
    case 'cmp':
      return `${wrap(node.left, LEVEL.not)} ${node.op} ${wrap(node.right, LEVEL.not)}`;
  }
}

// --- the reference: types and values -------------------------------------------------------------------------

type Context = Record<string, unknown> & {
  query?: Record<string, string>;
  tags?: Record<string, string>;
  events?: Record<string, boolean>;
};

function kindOf(node: Node, scope: ConditionScope): Kind | null {
  switch (node.t) {
    case 'str':
      return 'string';
    case 'num':
      return 'number';
    case 'bool':
    case 'not':
    case 'and':
    case 'or':
    case 'cmp':
      return 'boolean';
    case 'var': {
      if (scope === 'shop') return Object.hasOwn(SHOP_VARS, node.name) ? SHOP_VARS[node.name]! : null;
      if (Object.hasOwn(PAGE_VARS, node.name)) return PAGE_VARS[node.name]!;
      const [head] = node.name.split('.');
      const key = node.name.slice(head!.length + 1);
      if (!key) return null;
      return head === 'query' || head === 'tag' ? 'string' : head === 'event' ? 'boolean' : null;
    }
  }
}

/** Whether the compiler must accept the tree (known names, types that fit the operators, valid regexes). */
function isValid(node: Node, scope: ConditionScope): boolean {
  if (kindOf(node, scope) === null) return false;
  switch (node.t) {
    case 'not':
      return isValid(node.operand, scope);
    case 'and':
    case 'or':
      return isValid(node.left, scope) && isValid(node.right, scope);
    case 'cmp': {
      if (!isValid(node.left, scope) || !isValid(node.right, scope)) return false;
      const left = kindOf(node.left, scope);
      const right = kindOf(node.right, scope);
      if (node.op === 'matches') {
        if (node.right.t !== 'str' || left === 'boolean') return false;
        try {
          new RegExp(node.right.value);
          return true;
        } catch {
          return false;
        }
      }
      if (node.op === 'contains' || node.op === 'startsWith' || node.op === 'endsWith') return left !== 'boolean' && right !== 'boolean';
      if (left === 'boolean' || right === 'boolean') return node.op === '==' || node.op === '!=';
      return true;
    }
    default:
      return true;
  }
}

const own = (map: Record<string, unknown> | undefined, key: string) => (map && Object.hasOwn(map, key) ? map[key] : undefined);

function read(node: Extract<Node, { t: 'var' }>, scope: ConditionScope, c: Context): unknown {
  if (scope === 'shop') return own(c, node.name);
  const field = node.name === 'timeOnSite' ? 'timeOnSiteSeconds' : node.name;
  if (Object.hasOwn(PAGE_VARS, node.name)) return c[field];
  const [head] = node.name.split('.');
  const key = node.name.slice(head!.length + 1);
  if (head === 'query') return own(c.query, key);
  if (head === 'tag') return own(c.tags, key);
  return own(c.events, key) === undefined ? false : Boolean(own(c.events, key));
}

const toNumber = (value: unknown): number => {
  const number = Number(value);
  return Number.isNaN(number) ? 0 : number;
};
const toText = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

function value(node: Node, scope: ConditionScope, c: Context): { kind: Kind; v: unknown } {
  const kind = kindOf(node, scope)!;
  switch (node.t) {
    case 'str':
      return { kind, v: node.value };
    case 'num':
      return { kind, v: Number(node.text) };
    case 'bool':
      return { kind, v: node.value };
    case 'var':
      return { kind, v: read(node, scope, c) };
    default:
      return { kind, v: evaluate(node, scope, c) };
  }
}

function as(operand: { kind: Kind; v: unknown }, kind: Kind): string | number | boolean {
  if (kind === 'number') return toNumber(operand.v);
  if (kind === 'string') return toText(operand.v);
  if (operand.kind === 'number') return toNumber(operand.v) !== 0;
  return Boolean(operand.v);
}

function evaluate(node: Node, scope: ConditionScope, c: Context): boolean {
  switch (node.t) {
    case 'not':
      return !evaluate(node.operand, scope, c);
    case 'and':
      return evaluate(node.left, scope, c) && evaluate(node.right, scope, c);
    case 'or':
      return evaluate(node.left, scope, c) || evaluate(node.right, scope, c);
    case 'cmp': {
      const left = value(node.left, scope, c);
      const right = value(node.right, scope, c);
      if (node.op === 'matches') return new RegExp(String(right.v)).test(toText(as(left, 'string')));
      if (node.op === 'contains') return toText(as(left, 'string')).includes(toText(as(right, 'string')));
      if (node.op === 'startsWith') return toText(as(left, 'string')).startsWith(toText(as(right, 'string')));
      if (node.op === 'endsWith') return toText(as(left, 'string')).endsWith(toText(as(right, 'string')));
      const kind: Kind =
        left.kind === 'boolean' || right.kind === 'boolean'
          ? 'boolean'
          : left.kind === 'number' || right.kind === 'number'
            ? 'number'
            : 'string';
      const [a, b] = [as(left, kind), as(right, kind)];
      switch (node.op) {
        case '==':
          return a === b;
        case '!=':
          return a !== b;
        case '<':
          return a < b;
        case '<=':
          return a <= b;
        case '>':
          return a > b;
        case '>=':
          return a >= b;
      }
      break;
    }
    default:
      return as(value(node, scope, c), 'boolean') as boolean;
  }
  throw new Error('unreachable');
}

// --- arbitraries ---------------------------------------------------------------------------------------------

const literalText = fc.oneof(hostileString(12), fc.constantFrom(...NUMBERISH));

function nodeArbitrary(scope: ConditionScope): fc.Arbitrary<Node> {
  const names =
    scope === 'shop'
      ? [...Object.keys(SHOP_VARS), 'url', 'constructor']
      : [
          ...Object.keys(PAGE_VARS),
          ...KEYS.flatMap((key) => [`query.${key}`, `tag.${key}`, `event.${key}`]),
          'query',
          'pId',
          'constructor',
        ];
  const leaf: fc.Arbitrary<Node> = fc.oneof(
    { weight: 3, arbitrary: literalText.map((v): Node => ({ t: 'str', value: v })) },
    { weight: 2, arbitrary: fc.constantFrom(...NUMBER_TEXTS).map((text): Node => ({ t: 'num', text })) },
    { weight: 1, arbitrary: fc.boolean().map((v): Node => ({ t: 'bool', value: v })) },
    { weight: 4, arbitrary: fc.constantFrom(...names).map((name): Node => ({ t: 'var', name })) },
  );
  const { node } = fc.letrec<{ node: Node }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      tie('node').map((operand): Node => ({ t: 'not', operand })),
      fc.record({ t: fc.constantFrom<'and' | 'or'>('and', 'or'), left: tie('node'), right: tie('node') }),
      fc
        .record({
          op: fc.constantFrom(...OPS),
          left: tie('node'),
          right: tie('node'),
          regex: fc.option(fc.oneof(fc.constantFrom(...REGEXES), hostileString(6))),
        })
        .map(({ op, left, right, regex }): Node => ({
          t: 'cmp',
          op,
          left,
          right: op === 'matches' && regex !== null ? { t: 'str', value: regex } : right,
        })),
    ),
  }));
  return node;
}

const keyed = <T>(values: fc.Arbitrary<T>) => fc.dictionary(fc.constantFrom(...KEYS), values, { maxKeys: 4 });
const text = fc.oneof(literalText, hostileString(20));
const pageContext: fc.Arbitrary<Context> = fc.record({
  url: text,
  path: text,
  referrer: text,
  visitCount: fc.oneof(fc.integer({ min: -3, max: 20 }), fc.double({ min: -10, max: 10, noNaN: true })),
  timeOnSiteSeconds: fc.integer({ min: 0, max: 5000 }),
  query: keyed(text),
  tags: keyed(text),
  events: keyed(fc.boolean()),
});
const shopContext: fc.Arbitrary<Context> = fc.record(
  Object.fromEntries(
    Object.entries(SHOP_VARS).map(([name, kind]) => [
      name,
      kind === 'number' ? fc.oneof(fc.integer({ min: -5, max: 500 }), fc.double({ min: 0, max: 99, noNaN: true })) : text,
    ]),
  ),
  { requiredKeys: [] },
);

function compiledPredicate(js: string): (c: unknown) => unknown {
  // Tests only: the browser receives this source inside the bundle, never through new Function.
  return new Function(`return ${js}`)() as (c: unknown) => unknown;
}

describe('property: a segment condition behaves exactly as written', () => {
  for (const scope of ['page', 'shop'] as const) {
    it(`${scope} scope: compiled predicates agree with the reference evaluator, or the tree is refused with a column`, () => {
      fc.assert(
        fc.property(
          nodeArbitrary(scope),
          fc.integer({ min: 0, max: 2 }),
          fc.array(scope === 'page' ? pageContext : shopContext, { minLength: 1, maxLength: 4 }),
          (tree, escapeMode, contexts) => {
            const source = print(tree, escapeMode);
            const compiled = compileCondition(source, scope);
            if (!isValid(tree, scope)) {
              expect(compiled.ok, source).toBe(false);
              if (!compiled.ok) {
                expect(compiled.error.column).toBeGreaterThanOrEqual(1);
                expect(compiled.error.column).toBeLessThanOrEqual(source.length + 1);
              }
              return;
            }
            expect(compiled, source).toMatchObject({ ok: true });
            if (!compiled.ok) return;
            // nothing in the generated code can end a <script> element or a line in an old engine
            expect(compiled.js).not.toMatch(/<\/|<!--|[\u2028\u2029]/);
            const test = compiledPredicate(compiled.js);
            for (const context of contexts)
              expect(test(context), `${source} on ${JSON.stringify(context)}`).toBe(evaluate(tree, scope, context));
            expect(typeof test({})).toBe('boolean');
          },
        ),
        { numRuns: 400 },
      );
    });
  }

  it('a string literal read back is the exact string written, whatever its characters', () => {
    fc.assert(
      fc.property(hostileString(40), fc.integer({ min: 0, max: 2 }), (literal, escapeMode) => {
        const compiled = compileCondition(`tag.x == ${quote(literal, escapeMode)}`, 'page');
        expect(compiled.ok).toBe(true);
        if (!compiled.ok) return;
        const test = compiledPredicate(compiled.js);
        expect(test({ tags: { x: literal } })).toBe(true);
        expect(test({ tags: { x: `${literal} ` } })).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('random and hostile text is refused with a clean error and a column in range, never a crash', () => {
    const pieces = fc.constantFrom(
      ...HOSTILE_SNIPPETS,
      ' and ',
      ' or ',
      'not ',
      '(',
      ')',
      '"',
      'path',
      'tag.a',
      ' == ',
      ' contains ',
      ' matches ',
      '-1',
      '1.',
      '5',
      'true',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          hostileString(60),
          fc.array(pieces, { maxLength: 10 }).map((parts) => parts.join('')),
        ),
        fc.constantFrom<ConditionScope>('page', 'shop'),
        (source, scope) => {
          const compiled = compileCondition(source, scope);
          if (compiled.ok) {
            expect(typeof compiledPredicate(compiled.js)({})).toBe('boolean');
            return;
          }
          expect(compiled.error.code).toMatch(/^E_CONDITION_/);
          expect(compiled.error.message.length).toBeGreaterThan(0);
          expect(compiled.error.column).toBeGreaterThanOrEqual(1);
          expect(compiled.error.column).toBeLessThanOrEqual(source.length + 1);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a number used as text or text used as a number follows the documented reading', () => {
    const holds = (source: string, c: Context = {}) => {
      const compiled = compileCondition(source, 'page');
      if (!compiled.ok) throw new Error(`${source}: ${compiled.error.message}`);
      return compiledPredicate(compiled.js)(c);
    };
    expect(holds('"5" == 5')).toBe(true);
    expect(holds('" 2.5 " < 3')).toBe(true);
    expect(holds('"abc" == 0')).toBe(true);
    expect(holds('path contains -1', { path: '/page-1' })).toBe(true);
    expect(holds('path endsWith 2.5', { path: '/v2.5' })).toBe(true);
  });
});

// --- trigger expressions -------------------------------------------------------------------------------------

type Trigger = { t: 'event'; name: string } | { t: 'group'; inner: Trigger } | { t: 'join'; word: string; left: Trigger; right: Trigger };

const triggerArbitrary: fc.Arbitrary<Trigger> = fc.letrec<{ node: Trigger }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...TRIGGER_EVENTS).map((name): Trigger => ({ t: 'event', name })),
    tie('node').map((inner): Trigger => ({ t: 'group', inner })),
    fc.record({
      t: fc.constant('join' as const),
      word: fc.constantFrom('and', 'or', 'AND', 'Or', 'aNd'),
      left: tie('node'),
      right: tie('node'),
    }),
  ),
})).node;

function printTrigger(node: Trigger, space: string): string {
  if (node.t === 'event') return node.name;
  if (node.t === 'group') return `(${space}${printTrigger(node.inner, space)}${space})`;
  return `${printTrigger(node.left, space)} ${node.word}${space} ${printTrigger(node.right, space)}`;
}

function eventsOf(node: Trigger, into: string[] = []): string[] {
  if (node.t === 'event') {
    if (!into.includes(node.name)) into.push(node.name);
  } else if (node.t === 'group') eventsOf(node.inner, into);
  else eventsOf(node.right, eventsOf(node.left, into));
  return into;
}

describe('property: a trigger expression shows the prompt on any event it names', () => {
  it('every and/or reads as or: the result is the named events, in order of first mention', () => {
    fc.assert(
      fc.property(triggerArbitrary, fc.constantFrom('', ' ', '\t', '\n  '), (tree, space) => {
        expect(compileTriggerExpression(printTrigger(tree, space))).toEqual({ ok: true, anyOf: eventsOf(tree) });
      }),
      { numRuns: 300 },
    );
  });

  it('anything else is a clean error with a column in range', () => {
    const pieces = fc.constantFrom(...TRIGGER_EVENTS, ...HOSTILE_SNIPPETS, ' and ', ' or ', '(', ')', 'ecom.', 'constructor', '__proto__');
    fc.assert(
      fc.property(
        fc.oneof(
          hostileString(40),
          fc.array(pieces, { maxLength: 8 }).map((parts) => parts.join('')),
        ),
        (source) => {
          const compiled = compileTriggerExpression(source);
          if (compiled.ok) {
            for (const name of compiled.anyOf) expect(TRIGGER_EVENTS).toContain(name);
            return;
          }
          expect(compiled.error.code).toMatch(/^E_TRIGGER_/);
          expect(compiled.error.column).toBeGreaterThanOrEqual(1);
          expect(compiled.error.column).toBeLessThanOrEqual(source.length + 1);
        },
      ),
      { numRuns: 500 },
    );
  });
});
