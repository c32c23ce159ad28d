// Property tests of includeUrls / excludeUrls (README, "URL patterns"): random and hostile patterns either fail
// validation naming the pattern, or compile into the site module's urlQualifies, which must answer exactly as a
// reference matcher written here (no regular expressions for globs) on URLs made from the patterns.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateConfig, type ValidatedConfig } from '../../config/validate-config.ts';
import { compilePatternError, compileUrlList } from '../../compiler/url-patterns.ts';
import { generateSiteModule } from '../../compiler/site-module.ts';
import type { PromptMarkup, SiteModule } from '../../runtime/site-module.ts';
import { hostileString } from '../support/hostile-strings.ts';

const VAPID = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';
const LINE_TERMINATORS = /[\n\r\u2028\u2029]/g;

// --- the reference ----------------------------------------------------------------------------------------------

/** `*` is any run of characters; everything else is itself. Dynamic programming, no RegExp. */
function globMatches(text: string, glob: string): boolean {
  const parts = glob.split('*');
  if (parts.length === 1) return text === glob;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = text.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

/** The URL and, when the pattern has no `?`, the URL cut before each `?` (the query string is ignored). */
function candidates(url: string, pattern: string): string[] {
  if (pattern.includes('?')) return [url];
  const cuts = [url];
  for (let index = url.indexOf('?'); index >= 0; index = url.indexOf('?', index + 1)) cuts.push(url.slice(0, index));
  return cuts;
}

/** `scheme://host` then the rest, for a pattern that is a path on any site. */
function pathPart(url: string): string | undefined {
  const colon = url.indexOf('://');
  if (colon < 1) return undefined;
  const scheme = url.slice(0, colon);
  if (!/^[a-z]$/.test(scheme[0]!) || [...scheme].some((ch) => !/^[a-z0-9+.-]$/.test(ch))) return undefined;
  const slash = url.indexOf('/', colon + 3);
  if (slash < 0) return undefined;
  const host = url.slice(colon + 3, slash);
  if (!host || /[?#]/.test(host)) return undefined;
  return url.slice(slash);
}

function referenceMatches(pattern: string, url: string): boolean {
  if (pattern === '*') return true;
  if (pattern.startsWith('regex:')) return new RegExp(`^(?:${pattern.slice(6)})$`).test(url);
  if (pattern.startsWith('contains:')) return url.includes(pattern.slice(9));
  return candidates(url, pattern).some((candidate) => {
    if (!pattern.startsWith('/')) return globMatches(candidate, pattern);
    const path = pathPart(candidate);
    return path !== undefined && globMatches(path, pattern);
  });
}

function referenceQualifies(include: string[], exclude: string[], href: string): boolean {
  const url = href.split('#')[0]!;
  return include.some((pattern) => referenceMatches(pattern, url)) && !exclude.some((pattern) => referenceMatches(pattern, url));
}

// --- arbitraries --------------------------------------------------------------------------------------------------

/** Regular expressions with the characters that are delicate inside a RegExp literal in generated code. */
const REGEXES = [
  '^https://[^/]+/p/\\d+$',
  '.*</script>.*',
  '.*(?<=/p/)\\d+',
  '.*(?<!x)/a',
  '.*a\\<b.*',
  '.*[/<].*',
  '.*\\/x\\/.*',
  '.*`\\$\\{.*',
  '.*\\u2028.*',
  '.*\u00e9.*',
  'https?://[a-z.]+/(a|b)*',
  '.*<!--.*',
  '.*\\\\<.*',
];
const glob = fc
  .array(fc.oneof(hostileString(2), fc.constant('*'), fc.constant('?'), fc.constant('/')), { maxLength: 6 })
  .map((parts) => parts.join(''));
const pattern = fc.oneof(
  fc.constant('*'),
  glob.map((text) => `/${text}`),
  fc
    .tuple(fc.constantFrom('http', 'https'), fc.constantFrom('site.example', 'a.b:8080', '*'), glob)
    .map(([scheme, host, path]) => `${scheme}://${host}/${path}`),
  hostileString(3, 1).map((text) => `contains:${text}`),
  fc.constantFrom(...REGEXES).map((body) => `regex:${body}`),
  hostileString(4).map((text) => `regex:${text}`),
  hostileString(4),
);

/** A URL made from a pattern: wildcards filled with random text, maybe a query or fragment added. */
function urlFrom(patternText: string, fill: string[], query: string, fragment: string): string {
  let index = 0;
  const filled = (text: string) => text.replace(/\*/g, () => fill[index++ % fill.length] ?? '');
  let url: string;
  if (patternText.startsWith('contains:')) url = `https://site.example/${fill[0] ?? ''}${patternText.slice(9)}`;
  else if (patternText.startsWith('/')) url = `https://site.example${filled(patternText)}`;
  else if (/^https?:\/\//.test(patternText)) url = filled(patternText);
  else url = `https://site.example/${fill.join('/')}`;
  // a location.href never holds a raw line terminator: the URL parser percent-encodes or drops them
  return `${url}${query}${fragment}`.replace(LINE_TERMINATORS, '');
}

const fillText = fc.array(hostileString(2), { minLength: 1, maxLength: 3 });
const urlFor = (patterns: string[]) =>
  fc
    .tuple(
      fc.constantFrom(...patterns, 'https://other.example/x'),
      fillText,
      fc.constantFrom('', '?a=1', '?q=/blog/x', '?'),
      fc.constantFrom('', '#top', '#/blog/?x'),
      fc.boolean(),
    )
    .map(([from, fill, query, fragment, chop]) => {
      const url = urlFrom(from, fill, query, fragment);
      return chop ? url.slice(0, -1) : url;
    });

// --- the site module under test -----------------------------------------------------------------------------------

function siteModuleOf({ config, compiled }: ValidatedConfig): SiteModule {
  const source = generateSiteModule(config, compiled, {} as PromptMarkup);
  expect(source).not.toMatch(/<\/|<!--|[\u2028\u2029]/);
  // Tests only: the browser gets this module inside the bundle.
  return new Function(source.replace(/^export const site = /, 'return '))() as SiteModule;
}

function parseConfig(includeUrls: string[] | undefined, excludeUrls: string[]) {
  return validateConfig({
    hash: 'property-url-01',
    companyName: 'Patterns',
    origin: 'https://site.example',
    serverSyncUrl: 'https://push.example',
    vapidPublicKey: VAPID,
    ...(includeUrls ? { includeUrls } : {}),
    excludeUrls,
  });
}

describe('property: URL patterns', () => {
  it('a pattern is refused with a message naming it, or it compiles and matches as the reference does', () => {
    fc.assert(
      fc.property(
        pattern.chain((text) => fc.tuple(fc.constant(text), fc.array(urlFor([text]), { minLength: 1, maxLength: 5 }))),
        ([text, urls]) => {
          const problem = compilePatternError(text);
          if (problem !== undefined) {
            expect(problem.message).toContain(`URL pattern "${text}"`);
            return;
          }
          const regex = compileUrlList([text])!;
          for (const url of urls)
            expect(regex.test(url.split('#')[0]!), `${text} on ${url}`).toBe(referenceMatches(text, url.split('#')[0]!));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the site module answers as the reference for include and exclude lists, or validation names the bad entry', () => {
    fc.assert(
      fc.property(
        fc
          .tuple(fc.option(fc.array(pattern, { maxLength: 3 })), fc.array(pattern, { maxLength: 3 }))
          .chain(([include, exclude]) =>
            fc.tuple(
              fc.constant(include),
              fc.constant(exclude),
              fc.array(urlFor([...(include ?? []), ...exclude, '/']), { minLength: 1, maxLength: 6 }),
            ),
          ),
        ([include, exclude, urls]) => {
          const parsed = parseConfig(include ?? undefined, exclude);
          const entries = [
            ...(include ?? []).map((text, index) => [`includeUrls.${index}`, text]),
            ...exclude.map((text, index) => [`excludeUrls.${index}`, text]),
          ];
          // validation names every bad entry at once: the schema's (an empty pattern) first, then the patterns that
          // do not compile
          const empty = entries.filter(([, text]) => text === '');
          const bad = [...empty, ...entries.filter(([, text]) => text !== '' && compilePatternError(text!) !== undefined)];
          if (bad.length > 0) {
            expect(parsed.ok).toBe(false);
            if (!parsed.ok) expect(parsed.problems.map((problem) => problem.path)).toEqual(bad.map(([path]) => path));
            return;
          }
          expect(parsed.ok).toBe(true);
          if (!parsed.ok) return;
          const site = siteModuleOf(parsed);
          for (const url of urls) {
            expect(
              site.urlQualifies(url),
              `include ${JSON.stringify(include)} exclude ${JSON.stringify(exclude)} on ${JSON.stringify(url)}`,
            ).toBe(referenceQualifies(include ?? ['*'], exclude, url));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    ['regex:.*(?<=/p/)\\d+', 'https://site.example/p/12', true],
    ['regex:.*a\\<b', 'https://site.example/a<b', true],
    ['regex:.*a\\<b', 'https://site.example/a\\x3cb', false],
    ['regex:.*[/<]x', 'https://site.example/a<x', true],
    ['regex:.*<!--<script>.*', 'https://site.example/<!--<script>', true],
    ['contains:</script>', 'https://site.example/?</script>', true],
  ])('the site module keeps %s intact (%s: %s)', (text, url, expected) => {
    const parsed = parseConfig([text], []);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(siteModuleOf(parsed).urlQualifies(url)).toBe(expected);
  });
});
