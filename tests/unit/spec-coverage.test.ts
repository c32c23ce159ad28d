// tests/SPEC-COVERAGE.md says which test proves each rule of the spec; a renamed or deleted test would leave a row
// citing nothing. Every citation (`U/file › name`, `I/…`, `E/…`, and `› name` for another test of the same file)
// must name a test file that exists and, exactly, the title of a `describe`, `it` or `test` in it (or in a support
// file it imports that defines tests). After the title may come `;` and the next citation or prose, or a note in
// parentheses; a title cut short ends in "…" and must be the start of a title. Titles built from a table (`%s`,
// `$name`, `${…}`) match whatever fills the blank.
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const FOLDERS = { U: 'tests/unit', I: 'tests/integration', E: 'tests/e2e' } as const;
const normalize = (text: string): string => text.replace(/\\(['"`\\])/g, '$1').replace(/\s+/g, ' ');

/** Whether a string literal, comment or bracketed span starts at `at`. */
const opens = (source: string, at: number): boolean =>
  '([{\'"`'.includes(source[at]!) || (source[at] === '/' && '/*'.includes(source[at + 1] ?? ''));

/** The end of the string literal, comment or bracketed span that starts at `at` (just past it). */
function skip(source: string, at: number): number {
  const open = source[at]!;
  if (open === '/' && source[at + 1] === '/') return source.indexOf('\n', at) + 1 || source.length;
  if (open === '/' && source[at + 1] === '*') return source.indexOf('*/', at + 2) + 2;
  if (open === "'" || open === '"' || open === '`') {
    let i = at + 1;
    while (i < source.length && source[i] !== open) {
      if (source[i] === '\\') i += 1;
      else if (open === '`' && source[i] === '$' && source[i + 1] === '{') i = skip(source, i + 1) - 1;
      i += 1;
    }
    return i + 1;
  }
  const close = { '(': ')', '[': ']', '{': '}' }[open]!;
  let i = at + 1;
  while (i < source.length && source[i] !== close) {
    i = opens(source, i) ? skip(source, i) : i + 1;
  }
  return i + 1;
}

/**
 * The titles of the `describe`, `it` and `test` calls of a source file (`it.each(table)('… %s')`,
 * `describe.skipIf(x)('…')` too), each as its literal chunks around the blanks a table fills in. A title that
 * is not a literal (a variable) is left out: a citation cannot name it.
 */
function testTitles(source: string): string[][] {
  const titles: string[][] = [];
  for (const call of source.matchAll(/(?<![\w.$])(?:describe|it|test)\b/g)) {
    let at = call.index + call[0].length;
    // modifiers (`.skipIf(x)`, `.each([...])`, `.concurrent`), then the call that takes the title
    for (;;) {
      const modifier = /^\s*\.\s*(\w+)\s*/.exec(source.slice(at, at + 40));
      if (modifier) {
        at += modifier[0].length;
        if (source[at] === '(') at = skip(source, at);
        continue;
      }
      const opening = /^\s*\(\s*/.exec(source.slice(at, at + 40));
      if (!opening) break;
      at += opening[0].length;
      // the first argument: a literal, or an expression choosing between literals (`wide ? 'a' : 'b'`)
      let end = at;
      while (end < source.length && !',)'.includes(source[end]!)) end = opens(source, end) ? skip(source, end) : end + 1;
      for (const literal of source.slice(at, end).matchAll(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g)) {
        const text = normalize(literal[0].slice(1, -1));
        titles.push(text.split(/%[sdifjoOc#]|\$\{[^}]*\}|\$\w+(?:\.\w+)*/));
      }
      break;
    }
  }
  return titles;
}

/**
 * Whether `text` is a title these chunks spell (blanks filled with anything not empty), or with `cut`, the start of
 * one.
 */
function spells(chunks: string[], text: string, cut: boolean): boolean {
  const from = (at: number, index: number): boolean => {
    if (index === chunks.length) return at === text.length;
    const chunk = chunks[index]!;
    // a blank before every chunk but the first
    const starts = index === 0 ? [at] : Array.from({ length: text.length - at }, (_, offset) => at + offset + 1);
    for (const start of starts) {
      const left = text.slice(start);
      if (cut && chunk.startsWith(left)) return true;
      if (left.startsWith(chunk) && from(start + chunk.length, index + 1)) return true;
    }
    return false;
  };
  return from(0, 0);
}

const sources = new Map<string, string[][] | null>();
/** The test titles of `kind/name` and of the support files it imports. */
function titlesIn(kind: keyof typeof FOLDERS, name: string): string[][] | null {
  const key = `${kind}/${name}`;
  if (!sources.has(key)) {
    const file = [`${name}.test.ts`, `${name}.test.tsx`].map((file) => join(root, FOLDERS[kind], file)).find(existsSync);
    if (!file) sources.set(key, null);
    else {
      const source = readFileSync(file, 'utf8');
      const support = [...source.matchAll(/from '\.\.\/support\/([\w-]+\.ts)'/g)].map((match) =>
        readFileSync(join(root, 'tests/support', match[1]!), 'utf8'),
      );
      sources.set(key, [source, ...support].flatMap(testTitles));
    }
  }
  return sources.get(key)!;
}

interface Citation {
  row: string;
  file: string;
  /** What follows `› ` up to the next `›` or file: the title, then perhaps `;` and prose or a note. */
  text?: string;
}

const REFERENCE = /(?<=^|[\s(])([UIE])\/([\w-]+)/g;

function citations(): Citation[] {
  const found: Citation[] = [];
  for (const line of readFileSync(join(root, 'tests/SPEC-COVERAGE.md'), 'utf8').split('\n')) {
    if (!line.startsWith('| ') || /^\| (Rule|Case|Constant|Call) \|/.test(line)) continue;
    const cells = line.replace(/ \|$/, '').split(' | ');
    const row = cells[0]!.slice(2, 80);
    const cell = cells.at(-1)!;
    const references = [...cell.matchAll(REFERENCE)];
    for (const reference of references) found.push({ row, file: `${reference[1]}/${reference[2]}` });
    for (const arrow of cell.matchAll(/›/g)) {
      const owner = references.filter((reference) => reference.index < arrow.index).at(-1);
      if (!owner) continue;
      const next = Math.min(
        ...[cell.indexOf('›', arrow.index + 1), ...references.map((reference) => reference.index)].filter((at) => at > arrow.index),
        cell.length,
      );
      found.push({ row, file: `${owner[1]}/${owner[2]}`, text: normalize(cell.slice(arrow.index + 1, next)).trim() });
    }
  }
  return found;
}

/** Whether a citation's text starts with a title of the file exactly, or is cut short ("…") at the start of one. */
function namesATitle(titles: string[][], text: string): boolean {
  const ends = [text.length, ...[...text.matchAll(/;| \(|…/g)].map((match) => match.index)];
  return ends.some((end) => {
    const name = text.slice(0, end).trim().replace(/[;,]$/, '');
    const cut = text[end] === '…';
    return name.length > 0 && titles.some((chunks) => spells(chunks, name, cut));
  });
}

describe('tests/SPEC-COVERAGE.md', () => {
  it('cites only test files that exist, and titles that are tests in them, exactly', () => {
    const all = citations();
    expect(all.length).toBeGreaterThan(300);
    const broken = all.filter(({ file, text }) => {
      const [kind, base] = file.split('/') as [keyof typeof FOLDERS, string];
      const titles = titlesIn(kind, base);
      if (!titles) return true;
      return text !== undefined && !namesATitle(titles, text);
    });
    expect(broken.map(({ row, file, text }) => `${row}: ${file}${text ? ` › ${text}` : ''}`)).toEqual([]);
  });

  it('reads a title only exactly, or cut short with "…"', () => {
    const titles = testTitles("describe('outer', () => { it.each([1, 2])('row %s of the table', () => {}); it('a; b', () => {}); });");
    expect(titles.map((chunks) => chunks.join('%'))).toEqual(['outer', 'row % of the table', 'a; b']);
    expect(namesATitle(titles, 'row 1 of the table')).toBe(true);
    expect(namesATitle(titles, 'row 1 of the table (a note); prose')).toBe(true);
    expect(namesATitle(titles, 'row 1 of…')).toBe(true);
    expect(namesATitle(titles, 'a; b; prose')).toBe(true);
    expect(namesATitle(titles, 'row 1 of the tab')).toBe(false);
    expect(namesATitle(titles, 'row 1 of the table as well')).toBe(false);
    expect(namesATitle(titles, 'a; c')).toBe(false);
    expect(namesATitle(titles, 'outer is longer')).toBe(false);
  });
});
