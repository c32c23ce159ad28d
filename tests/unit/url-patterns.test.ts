import { describe, expect, it } from 'vitest';
import { compilePatternError, compileUrlList } from '../../compiler/url-patterns.ts';

function qualifies(patterns: string[], url: string): boolean {
  const regex = compileUrlList(patterns);
  return regex ? regex.test(url) : false;
}

describe('URL patterns', () => {
  const table: Array<[pattern: string, matches: string[], nonMatches: string[]]> = [
    ['*', ['https://a.example/', 'http://b.example/x?y=1', 'https://c.example/deep/path'], []],
    [
      '/blog/*',
      ['https://a.example/blog/post', 'http://other.example:8080/blog/', 'https://a.example/blog/post?page=2'],
      ['https://a.example/blog', 'https://a.example/news/blog/x', 'https://a.example/?q=/blog/x'],
    ],
    [
      '/about',
      ['https://a.example/about', 'https://a.example/about?ref=nav'],
      ['https://a.example/about/team', 'https://a.example/aboutx'],
    ],
    [
      'https://shop.example/checkouts/*',
      ['https://shop.example/checkouts/42', 'https://shop.example/checkouts/42?step=pay'],
      ['http://shop.example/checkouts/42', 'https://shopXexample/checkouts/42', 'https://evil.example/https://shop.example/checkouts/1'],
    ],
    ['/search?q=*', ['https://a.example/search?q=ink'], ['https://a.example/search', 'https://a.example/search?page=2']],
    ['contains:newsletter', ['https://a.example/newsletter', 'https://a.example/x?from=newsletter'], ['https://a.example/news']],
    ['regex:^https://[^/]+/p/\\d+$', ['https://a.example/p/12'], ['https://a.example/p/12x', 'http://a.example/p/12']],
    ['/price/1.5', ['https://a.example/price/1.5'], ['https://a.example/price/105']],
  ];

  for (const [pattern, matches, nonMatches] of table) {
    it(`${pattern} matches what it should and nothing else`, () => {
      expect(compilePatternError(pattern)).toBeUndefined();
      for (const url of matches) expect(qualifies([pattern], url), url).toBe(true);
      for (const url of nonMatches) expect(qualifies([pattern], url), url).toBe(false);
    });
  }

  it('a list matches when any pattern matches; an empty list matches nothing', () => {
    expect(qualifies(['/a/*', 'contains:promo'], 'https://x.example/b?promo=1')).toBe(true);
    expect(qualifies(['/a/*', 'contains:promo'], 'https://x.example/b')).toBe(false);
    expect(compileUrlList([])).toBeUndefined();
  });

  it('names what is wrong with a pattern that cannot compile, by code, and the pattern in the message', () => {
    for (const [pattern, code] of [
      ['blog/*', 'E_URL_PATTERN_FORM'],
      ['regex:', 'E_URL_PATTERN_EMPTY_REGEX'],
      ['regex:(', 'E_URL_PATTERN_INVALID_REGEX'],
      ['regex:(a)\\1', 'E_URL_PATTERN_GROUPS'],
      ['regex:(?<year>\\d+)', 'E_URL_PATTERN_GROUPS'],
      ['contains:', 'E_URL_PATTERN_EMPTY_CONTAINS'],
    ]) {
      const problem = compilePatternError(pattern!);
      expect(problem?.code, pattern).toBe(code);
      expect(problem?.message).toContain(`URL pattern "${pattern}"`);
    }
  });
});
