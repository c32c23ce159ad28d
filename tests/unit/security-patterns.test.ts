// Issue 27, safe patterns: a `regex:` URL pattern that can backtrack exponentially (nested or overlapping
// quantifiers) is refused by validation naming it (E_PATTERN_BACKTRACKING), and push.js tests at most the first
// 2,048 characters of a URL, so a crafted long link cannot freeze the visitor's tab.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../config/validate-config.ts';
import { compilePatternError } from '../../compiler/url-patterns.ts';
import { generateSiteModule } from '../../compiler/site-module.ts';
import type { PromptMarkup, SiteModule } from '../../runtime/site-module.ts';

const VAPID = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';
const base = {
  hash: 'security-patterns-01',
  companyName: 'Patterns',
  origin: 'https://site.example',
  serverSyncUrl: 'https://push.example',
  vapidPublicKey: VAPID,
};

const CATASTROPHIC = [
  'regex:^https://x/(x+x+)+y$',
  'regex:(a*)*',
  'regex:(a|a)*',
  'regex:(a|aa)+',
  'regex:^https://[^/]+/(\\w+)+$',
  'regex:.*(?=(a+)+!)',
  'regex:^https://[^/]+/(?:\\d{1,3})+x',
  'regex:([a-z]+|[0-9a-f]+)*',
  'regex:(?:\\s*,\\s*)+$',
];
const SAFE = [
  'regex:^https://[^/]+/p/\\d+$',
  'regex:^https://shop\\.example/(en|fr)/.*$',
  'regex:^https://(?:[a-z0-9-]+\\.)+example/blog/.*',
  'regex:https?://[a-z.]+/(a|b)*',
  'regex:.*a.*b.*',
  'regex:(?:/[a-z0-9-]+)+/?',
  'regex:^https://[^/]+/(?:blog|news)/\\d{4}/\\d{2}/.*$',
];

describe('regex: patterns that backtrack catastrophically', () => {
  it.each(CATASTROPHIC)('%s is refused with E_PATTERN_BACKTRACKING, naming it', (pattern) => {
    const problem = compilePatternError(pattern);
    expect(problem?.code).toBe('E_PATTERN_BACKTRACKING');
    expect(problem?.message).toContain(`URL pattern "${pattern}"`);
  });

  it.each(SAFE)('%s is kept', (pattern) => {
    expect(compilePatternError(pattern)).toBeUndefined();
  });

  it('validation refuses a config with one, at its field', () => {
    const result = validateConfig({ ...base, includeUrls: ['/blog/*', CATASTROPHIC[0]], excludeUrls: [CATASTROPHIC[2]] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map(({ code, path }) => `${path} ${code}`)).toEqual([
      'includeUrls.1 E_URL_PATTERN',
      'excludeUrls.0 E_URL_PATTERN',
    ]);
    expect(result.problems[0]!.message).toContain('(x+x+)+');
  });
});

function siteModuleOf(includeUrls: string[], excludeUrls: string[] = []): SiteModule {
  const result = validateConfig({ ...base, includeUrls, excludeUrls });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const source = generateSiteModule(result.config, result.compiled, {} as PromptMarkup);
  // Tests only: the browser gets this module inside the bundle.
  return new Function(source.replace(/^export const site = /, 'return '))() as SiteModule;
}

describe("push.js's URL matcher reads at most 2,048 characters", () => {
  it('a 100 KB URL against a quadratic pattern answers at once', () => {
    // Not exponential, so allowed; over 100 KB it would take minutes.
    const site = siteModuleOf(['regex:.*x.*y']);
    const url = `https://site.example/?${'x'.repeat(100 * 1024)}`;
    const started = performance.now();
    expect(site.urlQualifies(url)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('only the first 2,048 characters count, for includeUrls and excludeUrls', () => {
    const padded = (at: number, mark: string) => {
      const head = 'https://site.example/?q=';
      return `${head}${'p'.repeat(at - head.length)}${mark}${'p'.repeat(100 * 1024)}`;
    };
    const include = siteModuleOf(['contains:MARK']);
    expect(include.urlQualifies(padded(2048 - 4, 'MARK'))).toBe(true);
    expect(include.urlQualifies(padded(2048 - 3, 'MARK'))).toBe(false);
    const exclude = siteModuleOf(['*'], ['contains:MARK']);
    expect(exclude.urlQualifies(padded(100, 'MARK'))).toBe(false);
    expect(exclude.urlQualifies(padded(4096, 'MARK'))).toBe(true);
  });
});
