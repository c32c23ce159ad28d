import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileCondition, type ConditionScope } from '../../compiler/segment-condition.ts';
import { formatConditionError } from '../../contract/conditions.ts';
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
  if (!compiled.ok) throw new Error(formatConditionError(compiled.error));
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
    expect(compileCondition('path == "/"', 'shop')).toMatchObject({
      ok: false,
      error: { code: 'E_CONDITION_UNKNOWN_VARIABLE', column: 1 },
    });
    expect(compileCondition('cTotal > 1', 'page')).toMatchObject({ ok: false, error: { code: 'E_CONDITION_UNKNOWN_VARIABLE', column: 1 } });
  });
});

describe('compileCondition: errors with their catalogue code and 1-based column', () => {
  it.each([
    ['', 'E_CONDITION_EXPECTED_CONDITION', 1],
    ['   ', 'E_CONDITION_EXPECTED_CONDITION', 4],
    ['foo == 1', 'E_CONDITION_UNKNOWN_VARIABLE', 1],
    ['path == "/a" and foo', 'E_CONDITION_UNKNOWN_VARIABLE', 18],
    ['path == "/a" and', 'E_CONDITION_EXPECTED_VALUE', 17],
    ['path == "/a" or', 'E_CONDITION_EXPECTED_VALUE', 16],
    ['not', 'E_CONDITION_EXPECTED_VALUE', 4],
    ['path ==', 'E_CONDITION_EXPECTED_VALUE', 8],
    ['path == )', 'E_CONDITION_EXPECTED_VALUE', 9],
    ['path == "/a")', 'E_CONDITION_UNEXPECTED_TOKEN', 13],
    [')', 'E_CONDITION_UNEXPECTED_TOKEN', 1],
    ['(path == "/a"', 'E_CONDITION_UNCLOSED_PARENTHESIS', 14],
    ['path == "abc', 'E_CONDITION_UNTERMINATED_STRING', 9],
    ['path == "abc\\', 'E_CONDITION_UNTERMINATED_STRING', 9],
    ['path == "a\\q"', 'E_CONDITION_UNKNOWN_ESCAPE', 11],
    ['path = "/a"', 'E_CONDITION_UNEXPECTED_CHARACTER', 6],
    ['path == "/a" && visitCount > 1', 'E_CONDITION_UNEXPECTED_CHARACTER', 14],
    ['path == 1x', 'E_CONDITION_INVALID_NUMBER', 9],
    ['query == "a"', 'E_CONDITION_NAME_REQUIRED', 1],
    ['event. == true', 'E_CONDITION_NAME_REQUIRED', 1],
    ['url matches "("', 'E_CONDITION_INVALID_REGEX', 13],
    ['url matches path', 'E_CONDITION_MATCHES_NEEDS_PATTERN', 13],
    ['event.scroll < true', 'E_CONDITION_BOOLEAN_ORDER', 14],
    ['not url contains "x"', 'E_CONDITION_NEEDS_TEXT', 9],
    ['path == "/a" == "/b"', 'E_CONDITION_UNEXPECTED_TOKEN', 14],
    ['path "/a"', 'E_CONDITION_UNEXPECTED_TOKEN', 6],
    ['constructor == ""', 'E_CONDITION_UNKNOWN_VARIABLE', 1],
    ['__proto__ == ""', 'E_CONDITION_UNKNOWN_VARIABLE', 1],
    ['and', 'E_CONDITION_UNEXPECTED_TOKEN', 1],
  ])('%j -> %s at %i', (source, code, column) => {
    expect(compileCondition(source, 'page')).toMatchObject({ ok: false, error: { code, column, expression: source } });
  });
  it('writes the message as the docs show it (docs/conditions.md, Errors)', () => {
    const compiled = compileCondition('path == "/a" and', 'page');
    expect(compiled.ok ? undefined : formatConditionError(compiled.error)).toBe('expected a value after "and" at column 17');
    const unclosed = compileCondition('(path == "/a"', 'page');
    expect(unclosed.ok ? undefined : unclosed.error.message).toBe('expected ")" to close "(" at column 1, found the end');
  });
  it('shop field names from Object.prototype are unknown', () => {
    expect(compileCondition('constructor == ""', 'shop')).toMatchObject({
      ok: false,
      error: { code: 'E_CONDITION_UNKNOWN_VARIABLE', column: 1 },
    });
    expect(compileCondition('hasOwnProperty == ""', 'shop')).toMatchObject({ ok: false, error: { code: 'E_CONDITION_UNKNOWN_VARIABLE' } });
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
    const unexpected = (column: number) => ({ ok: false, error: { code: 'E_CONDITION_UNEXPECTED_CHARACTER', column } });
    expect(compileCondition('path == `x`', 'page')).toMatchObject(unexpected(9));
    expect(compileCondition("path == 'x'", 'page')).toMatchObject(unexpected(9));
    expect(compileCondition('path == "a" */', 'page')).toMatchObject(unexpected(13));
  });
});

describe('compileCondition: generated code', () => {
  it('is short', () => {
    const compiled = compileCondition('path startsWith "/blog" and visitCount > 2', 'page');
    expect(compiled).toEqual({ ok: true, js: '(c)=>(([c.path]+"").startsWith("/blog")&&((+c.visitCount||0)>2))' });
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
            expect(compiled.error.column).toBeGreaterThanOrEqual(1);
            expect(compiled.error.column).toBeLessThanOrEqual(source.length + 1);
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
