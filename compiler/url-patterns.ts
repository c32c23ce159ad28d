// URL patterns of includeUrls / excludeUrls, compiled at build time into RegExp sources so the browser never
// parses a pattern. Syntax (README, "URL patterns"):
//   *                     every URL
//   /blog/*               a path on the site (any scheme and host); `*` matches any run of characters
//   https://shop.example/checkouts/*   a whole URL, with `*` wildcards
//   contains:newsletter   any URL that contains the text
//   regex:^https://[^/]+/p/\d+$       a JavaScript regular expression, tested against the whole URL
// Without a `?` in it, a path or URL pattern ignores the query string; the fragment is never matched.
// A regular expression that can backtrack exponentially is refused (regex-backtracking.ts); against the slower
// but polynomial ones push.js reads at most MAX_MATCHED_URL_LENGTH characters of a URL.

import { compilerMessage, type UrlPatternErrorCode, type UrlPatternProblem } from './errors.ts';
import { exponentialBacktracking } from './regex-backtracking.ts';

const REGEX_PREFIX = 'regex:';
/** How much of a URL push.js tests against the patterns (issue 27): a crafted long link costs no more. */
export const MAX_MATCHED_URL_LENGTH = 2048;
const CONTAINS_PREFIX = 'contains:';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function globSource(glob: string): string {
  return glob.split('*').map(escapeRegExp).join('.*');
}

/** The RegExp source (anchored, whole URL without fragment) of one pattern. */
export function patternSource(pattern: string): string {
  if (pattern.startsWith(REGEX_PREFIX)) return `(?:${pattern.slice(REGEX_PREFIX.length)})`;
  if (pattern.startsWith(CONTAINS_PREFIX)) return `.*${escapeRegExp(pattern.slice(CONTAINS_PREFIX.length))}.*`;
  if (pattern === '*') return '.*';
  // a pattern ending in `*` matches any query already
  const query = pattern.includes('?') || pattern.endsWith('*') ? '' : '(?:\\?.*)?';
  if (pattern.startsWith('/')) return `[a-z][a-z0-9+.-]*:\\/\\/[^/?#]+${globSource(pattern)}${query}`;
  return `${globSource(pattern)}${query}`;
}

function problem(
  code: Exclude<UrlPatternErrorCode, 'E_URL_PATTERN_INVALID_REGEX' | 'E_PATTERN_BACKTRACKING'>,
  pattern: string,
): UrlPatternProblem {
  return { code, message: compilerMessage(code, { pattern }) };
}

/** Why the pattern cannot be used, or undefined when it compiles. */
export function compilePatternError(pattern: string): UrlPatternProblem | undefined {
  if (pattern.startsWith(REGEX_PREFIX)) {
    const body = pattern.slice(REGEX_PREFIX.length);
    if (!body) return problem('E_URL_PATTERN_EMPTY_REGEX', pattern);
    if (/\\[1-9]|\\k<|\(\?<[^=!]/.test(body)) return problem('E_URL_PATTERN_GROUPS', pattern);
    try {
      new RegExp(body);
    } catch (error) {
      const code = 'E_URL_PATTERN_INVALID_REGEX';
      return { code, message: compilerMessage(code, { pattern, reason: (error as Error).message }) };
    }
    const part = exponentialBacktracking(body);
    if (part === undefined) return undefined;
    return { code: 'E_PATTERN_BACKTRACKING', message: compilerMessage('E_PATTERN_BACKTRACKING', { pattern, part }) };
  }
  if (pattern.startsWith(CONTAINS_PREFIX)) {
    return pattern.length > CONTAINS_PREFIX.length ? undefined : problem('E_URL_PATTERN_EMPTY_CONTAINS', pattern);
  }
  if (pattern === '*' || pattern.startsWith('/') || /^https?:\/\//.test(pattern)) return undefined;
  return problem('E_URL_PATTERN_FORM', pattern);
}

/** One anchored RegExp for the whole list (patterns are checked by compilePatternError first). */
export function compileUrlList(patterns: readonly string[]): RegExp | undefined {
  if (patterns.length === 0) return undefined;
  if (patterns.includes('*')) return /^.*$/s;
  const sources = patterns.map(patternSource);
  return new RegExp(sources.length > 1 ? `^(?:${sources.join('|')})$` : `^${sources[0]}$`);
}
