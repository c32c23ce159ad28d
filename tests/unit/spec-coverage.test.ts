// tests/SPEC-COVERAGE.md says which test proves each rule of the spec; a renamed or deleted test would leave a row
// citing nothing. Every citation (`U/file › name`, `I/…`, `E/…`, and `› name` for another test of the same file)
// must name a test file that exists and a test or describe name in it (or in the support file that defines it). A
// name may be cut short with "…" or followed by a note in parentheses; names built from a table (`%s`, `${…}`)
// match whatever fills the blank.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const FOLDERS = { U: 'tests/unit', I: 'tests/integration', E: 'tests/e2e' } as const;
const normalize = (text: string): string => text.replace(/\\(['"`\\])/g, '$1').replace(/\s+/g, ' ');

/** The string literals of a source file, each as its literal chunks around the blanks a table fills in. */
function literalChunks(source: string): string[][] {
  const chunks: string[][] = [];
  const literal = /'((?:\\.|[^'\\\n])*)'|"((?:\\.|[^"\\\n])*)"|`((?:\\.|[^`\\])*)`/g;
  for (const match of source.matchAll(literal)) {
    const text = normalize(match[1] ?? match[2] ?? match[3] ?? '');
    const parts = text.split(/%[sdifjo]|\$\{[^}]*\}/);
    // a literal that is mostly blanks (`${what}: ${result}`) names nothing by itself
    if (parts.join('').length >= 8) chunks.push(parts);
  }
  return chunks;
}

/** Whether `cited` (possibly cut short) is the start of a name these chunks can spell. */
function spells(chunks: string[], cited: string): boolean {
  const [first, ...rest] = chunks;
  if (first!.startsWith(cited)) return true;
  if (!cited.startsWith(first!)) return false;
  let at = first!.length;
  for (const chunk of rest) {
    if (!chunk) continue;
    const found = cited.indexOf(chunk, at);
    if (found < 0) {
      // the citation may end inside this chunk
      return [...Array(chunk.length).keys()].some((cut) => cut > 0 && cited.endsWith(chunk.slice(0, cut)));
    }
    at = found + chunk.length;
  }
  return true;
}

const support = readdirSync(join(root, 'tests/support')).flatMap((file) =>
  literalChunks(readFileSync(join(root, 'tests/support', file), 'utf8')),
);
const sources = new Map<string, string[][] | null>();
function namesIn(kind: keyof typeof FOLDERS, name: string): string[][] | null {
  const key = `${kind}/${name}`;
  if (!sources.has(key)) {
    const file = [`${name}.test.ts`, `${name}.test.tsx`].map((file) => join(root, FOLDERS[kind], file)).find(existsSync);
    sources.set(key, file ? [...literalChunks(readFileSync(file, 'utf8')), ...support] : null);
  }
  return sources.get(key)!;
}

interface Citation {
  row: string;
  file: string;
  name?: string;
}

function citations(): Citation[] {
  const found: Citation[] = [];
  for (const line of readFileSync(join(root, 'tests/SPEC-COVERAGE.md'), 'utf8').split('\n')) {
    if (!line.startsWith('| ') || line.startsWith('| Rule |') || line.startsWith('| Case |') || line.startsWith('| Constant |')) continue;
    if (line.startsWith('| Call |')) continue;
    const cells = line.replace(/ \|$/, '').split(' | ');
    const row = cells[0]!.slice(2, 80);
    let file: string | undefined;
    for (const part of cells.at(-1)!.split(';')) {
      const reference = /(?:^|\s)([UIE])\/([\w-]+)((?: › .*)?)$/.exec(part.trim()) ?? /^\s*([UIE])\/([\w-]+)(.*)$/.exec(part);
      let names: string;
      if (reference) {
        file = `${reference[1]}/${reference[2]}`;
        names = reference[3] ?? '';
        found.push({ row, file });
      } else if (part.trim().startsWith('›') && file) names = part;
      else continue;
      for (const piece of names.split('›').slice(1)) {
        const name = normalize(piece.split('…')[0]!.split(' (')[0]!)
          .trim()
          .replace(/[.,:]$/, '');
        if (name.length >= 6) found.push({ row, file: file!, name });
      }
    }
  }
  return found;
}

describe('tests/SPEC-COVERAGE.md', () => {
  it('cites only test files that exist, and names that are tests in them', () => {
    const all = citations();
    expect(all.length).toBeGreaterThan(300);
    const broken = all.filter(({ file, name }) => {
      const [kind, base] = file.split('/') as [keyof typeof FOLDERS, string];
      const names = namesIn(kind, base);
      if (!names) return true;
      return name !== undefined && !names.some((chunks) => spells(chunks, name));
    });
    expect(broken.map(({ row, file, name }) => `${row}: ${file}${name ? ` › ${name}` : ''}`)).toEqual([]);
  });
});
