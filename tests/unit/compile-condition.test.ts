import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileCondition, type ConditionScope } from '../../compiler/segment-condition.ts';
import type { SegmentContext } from '../../runtime/site-module.ts';

function context(overrides: Partial<SegmentContext> = {}): SegmentContext {
  return {
    url: 'https://shop.example/blog/post?utm_source=news',
    path: '/blog/post',
    referrer: 'https://mail.example/inbox',
    query: { utm_source: 'news' },
    visitCount: 3,
    timeOnSiteSeconds: 75,
    tags: { plan: 'pro' },
    events: { scroll: true },
    ...overrides,
  };
}

function predicate(source: string, scope: ConditionScope = 'page'): (c: unknown) => boolean {
  const compiled = compileCondition(source, scope);
  if (!compiled.ok) throw new Error(`${compiled.message} at ${compiled.position}`);
  // Tests only: the browser receives this source inside the bundle, never through new Function.
  return new Function(`return ${compiled.js}`)() as (c: unknown) => boolean;
}

const PAGE_TABLE: Array<[string, Partial<SegmentContext>, boolean]> = [
  ['path startsWith "/blog"', {}, true],
  ['path startsWith "/shop"', {}, false],
  ['path endsWith "/post"', {}, true],
  ['url contains "utm_source=news"', {}, true],
  ['referrer contains "mail"', {}, true],
  ['url matches "^https://shop\\\\.example/"', {}, true],
  ['url matches "^http://"', {}, false],
  ['visitCount >= 3', {}, true],
  ['visitCount > 3', {}, false],
  ['visitCount < 3', {}, false],
  ['visitCount <= 3', {}, true],
  ['visitCount == 3', {}, true],
  ['visitCount != 3', {}, false],
  ['timeOnSite >= 60', {}, true],
  ['timeOnSite > 100', {}, false],
  ['query.utm_source == "news"', {}, true],
  ['query.utm_source == "ads"', {}, false],
  ['query.missing == ""', {}, true],
  ['tag.plan == "pro"', {}, true],
  ['tag.plan != "free"', {}, true],
  ['tag.nothing contains "x"', {}, false],
  ['event.scroll', {}, true],
  ['event.delay', {}, false],
  ['event.ecom.add_cart', { events: { 'ecom.add_cart': true } }, true],
  ['event.scroll == true', {}, true],
  ['event.delay == false', {}, true],
  ['not event.delay', {}, true],
  ['not not event.scroll', {}, true],
  ['path == "/blog/post" and visitCount > 2', {}, true],
  ['path == "/x" or visitCount > 2', {}, true],
  ['path == "/x" or visitCount > 5', {}, false],
  ['true', {}, true],
  ['false', {}, false],
  ['visitCount > -1', { visitCount: 0 }, true],
  ['timeOnSite >= 1.5', { timeOnSiteSeconds: 2 }, true],
  ['path == "caf\\u00e9 \\"q\\" \\\\ x"', { path: 'café "q" \\ x' }, true],
  ['not (path contains "blog")', {}, false],
  ['url', {}, true],
  ['url', { url: '' }, false],
];

describe('compileCondition: page scope table', () => {
  it.each(PAGE_TABLE)('%s', (source, overrides, expected) => {
    expect(predicate(source)(context(overrides))).toBe(expected);
  });
});

describe('compileCondition: precedence', () => {
  it('and binds tighter than or', () => {
    // false and false or true == (false and false) or true
    const test = predicate('path == "/x" and visitCount > 9 or tag.plan == "pro"');
    expect(test(context())).toBe(true);
    // true or false and false == true or (false and false)
    expect(predicate('tag.plan == "pro" or path == "/x" and visitCount > 9')(context())).toBe(true);
  });
  it('parentheses override', () => {
    expect(predicate('(path == "/x" or tag.plan == "pro") and visitCount > 9')(context())).toBe(false);
  });
  it('not applies to the operand right after it', () => {
    expect(predicate('not event.delay and event.scroll')(context())).toBe(true);
    expect(predicate('not (event.delay or event.scroll)')(context())).toBe(false);
    expect(predicate('not event.scroll == false')(context())).toBe(true);
  });
});

describe('compileCondition: missing values never throw', () => {
  const empty = { url: undefined, path: null, query: undefined, tags: null, events: {} };
  it.each([
    ['path == ""', true],
    ['visitCount == 0', true],
    ['query.a contains ""', true],
    ['tag.a startsWith "x"', false],
    ['event.scroll', false],
    ['url matches "^$"', true],
  ])('%s', (source, expected) => {
    expect(predicate(source)(empty)).toBe(expected);
  });
  it('non-numeric text compares as 0', () => {
    expect(predicate('visitCount == 0')({ ...context(), visitCount: 'many' })).toBe(true);
  });
});

describe('compileCondition: shop scope', () => {
  it.each([
    ['cTotal > 50', { cTotal: 60 }, true],
    ['cTotal > 50', { cTotal: 40 }, false],
    ['price >= 9.99 and quant > 1', { price: 9.99, quant: 2 }, true],
    ['brand == "Acme" and cat contains "ink"', { brand: 'Acme', cat: 'inks' }, true],
    ['coupon == "" and total > 0', { total: 10 }, true],
    ['items >= 2 and shipping == 0 and tax < 5 and discount == 0', { items: 3, shipping: 0, tax: 1, discount: 0 }, true],
    [
      'pId == "7" and pName startsWith "P" and sku != "" and pUrl endsWith "/p" and cItemsCount == 1',
      { pId: 7, pName: 'Pen', sku: 'S', pUrl: '/p', cItemsCount: 1 },
      true,
    ],
  ] as Array<[string, Record<string, unknown>, boolean]>)('%s on %j', (source, data, expected) => {
    expect(predicate(source, 'shop')(data)).toBe(expected);
  });
  it('page variables are unknown in shop scope and shop fields in page scope', () => {
    expect(compileCondition('path == "/"', 'shop')).toEqual({ ok: false, message: 'unknown variable "path"', position: 1 });
    expect(compileCondition('cTotal > 1', 'page')).toEqual({ ok: false, message: 'unknown variable "cTotal"', position: 1 });
  });
});

describe('compileCondition: errors with message and 1-based column', () => {
  it.each([
    ['', 'expected a condition', 1],
    ['   ', 'expected a condition', 4],
    ['foo == 1', 'unknown variable "foo"', 1],
    ['path == "/a" and foo', 'unknown variable "foo"', 18],
    ['path == "/a" and', 'expected a value after "and"', 17],
    ['path == "/a" or', 'expected a value after "or"', 16],
    ['not', 'expected a value after "not"', 4],
    ['path ==', 'expected a value after "=="', 8],
    ['path == )', 'expected a value after "==", found ")"', 9],
    ['path == "/a")', 'unexpected ")"', 13],
    [')', 'unexpected ")"', 1],
    ['(path == "/a"', 'expected ")" to close "(" at column 1, found the end', 14],
    ['path == "abc', 'unterminated string', 9],
    ['path == "abc\\', 'unterminated string', 9],
    ['path == "a\\q"', 'unknown escape "\\q" in string', 11],
    ['path = "/a"', 'unexpected character "="', 6],
    ['path == "/a" && visitCount > 1', 'unexpected character "&"', 14],
    ['path == 1x', 'invalid number "1x"', 9],
    ['query == "a"', '"query" needs a name, as in query.utm_source', 1],
    ['event. == true', '"event" needs a name, as in event.scroll', 1],
    ['url matches "("', 'invalid regular expression: Invalid regular expression: /(/: Unterminated group', 13],
    ['url matches path', '"matches" needs a quoted regular expression after it', 13],
    ['event.scroll < true', '"<" cannot compare true/false values', 14],
    ['not url contains "x"', '"contains" needs text on both sides; to negate it write not (... contains ...)', 9],
    ['path == "/a" == "/b"', 'unexpected "=="', 14],
    ['path "/a"', 'unexpected "\\"/a\\""', 6],
    ['constructor == ""', 'unknown variable "constructor"', 1],
    ['__proto__ == ""', 'unknown variable "__proto__"', 1],
    ['and', 'unexpected "and"', 1],
  ])('%j -> %s at %i', (source, message, position) => {
    expect(compileCondition(source, 'page')).toEqual({ ok: false, message, position });
  });
  it('shop field names from Object.prototype are unknown', () => {
    expect(compileCondition('constructor == ""', 'shop')).toEqual({ ok: false, message: 'unknown variable "constructor"', position: 1 });
    expect(compileCondition('hasOwnProperty == ""', 'shop')).toMatchObject({ ok: false, message: 'unknown variable "hasOwnProperty"' });
  });
});

describe('compileCondition: hostile inputs', () => {
  const HOSTILE = [
    '"',
    '*/',
    '</script><script>alert(1)</script>',
    '`${alert(1)}`',
    '\u2028',
    '\u2029',
    "'",
    '\\',
    '});alert(1);({',
    '<!--',
  ];
  it.each(HOSTILE)('a string literal holding %j behaves as written', (text) => {
    const literal = JSON.stringify(text);
    const compiled = compileCondition(`tag.x == ${literal} and path contains ${literal}`, 'page');
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    expect(compiled.js).not.toContain('</script');
    expect(compiled.js).not.toMatch(/[\u2028\u2029]/);
    const test = predicate(`tag.x == ${literal} and path contains ${literal}`);
    expect(test(context({ tags: { x: text }, path: `/a${text}b` }))).toBe(true);
    expect(test(context({ tags: { x: `${text}!` }, path: `/a${text}b` }))).toBe(false);
  });
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('map key %s reads only own values', (name) => {
    expect(predicate(`tag.${name} == ""`)(context())).toBe(true);
    expect(predicate(`query.${name} == "v"`)(context({ query: { [name]: 'v' } as Record<string, string> }))).toBe(true);
    expect(predicate(`event.${name}`)(context())).toBe(false);
  });
  it('a hostile regex is a string inside new RegExp, not code', () => {
    expect(predicate('url matches "</script>|`|\\u2028"')(context({ url: 'a`b' }))).toBe(true);
  });
  it('raw backticks and quotes outside strings are clean errors', () => {
    expect(compileCondition('path == `x`', 'page')).toEqual({ ok: false, message: 'unexpected character "`"', position: 9 });
    expect(compileCondition("path == 'x'", 'page')).toEqual({ ok: false, message: 'unexpected character "\'"', position: 9 });
    expect(compileCondition('path == "a" */', 'page')).toEqual({ ok: false, message: 'unexpected character "*"', position: 13 });
  });
});

describe('compileCondition: generated code', () => {
  it('is short', () => {
    const compiled = compileCondition('path startsWith "/blog" and visitCount > 2', 'page');
    expect(compiled).toEqual({ ok: true, js: '(c)=>(String(c.path??"").startsWith("/blog")&&((+c.visitCount||0)>2))' });
  });
  it('for random input is an error with a position in range or source that parses', () => {
    const alphabet = fc.constantFrom(
      ...'ab ()"\\<>=!-.19`\u2028'.split(''),
      ' and ',
      ' or ',
      'not ',
      'path',
      'tag.',
      'event.x',
      'query.q',
      ' contains ',
      ' matches ',
      'visitCount',
      '"</script>"',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(alphabet, { maxLength: 12 }).map((parts) => parts.join('')),
        ),
        fc.constantFrom<ConditionScope>('page', 'shop'),
        (source, scope) => {
          const compiled = compileCondition(source, scope);
          if (!compiled.ok) {
            expect(compiled.position).toBeGreaterThanOrEqual(1);
            expect(compiled.position).toBeLessThanOrEqual(source.length + 1);
            return;
          }
          const test = new Function(`return ${compiled.js}`)() as (c: unknown) => unknown;
          expect(typeof test(context())).toBe('boolean');
          expect(typeof test({})).toBe('boolean');
        },
      ),
      { numRuns: 2000 },
    );
  });
});
