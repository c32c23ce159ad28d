// The docs say what a user sees: docs/ci.md's examples are what `push-kit build --json` and `validate --strict`
// really print (the real bin, as CI runs it), and every Markdown file the docs and the tests cite exists.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const ciDoc = await readFile(join(root, 'docs/ci.md'), 'utf8');

/** The first fenced block of `language` after the heading that starts with `heading`. */
function fencedBlock(heading: string, language: string): string {
  const section = ciDoc.slice(ciDoc.indexOf(`\n## ${heading}`));
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)\\n```').exec(section);
  if (!block) throw new Error(`docs/ci.md has no ${language} block under "${heading}"`);
  return block[1]!;
}

async function pushKit(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [join(root, 'bin/push-kit.js'), ...args], { cwd, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A project whose `site-configs/<name>.json` are the minimal config with these fields changed. */
async function project(configs: Record<string, Record<string, unknown>>): Promise<string> {
  const minimal = JSON.parse(await readFile(join(root, 'tests/fixtures/configs/minimal.json'), 'utf8')) as Record<string, unknown>;
  delete minimal.$schema;
  const dir = await mkdtemp(join(tmpdir(), 'pk-docs-'));
  projects.push(dir);
  await mkdir(join(dir, 'site-configs'));
  for (const [name, fields] of Object.entries(configs))
    await writeFile(join(dir, 'site-configs', `${name}.json`), JSON.stringify({ ...minimal, ...fields }));
  return dir;
}
const projects: string[] = [];
afterAll(() => Promise.all(projects.map((dir) => rm(dir, { recursive: true, force: true }))));

/** The keys of every object, as one shape; an array is the set of its elements' shapes. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return [...new Set(value.map((item) => JSON.stringify(shape(item))))].sort();
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shape((value as Record<string, unknown>)[key])]),
    );
  return typeof value;
}

describe('docs/ci.md', () => {
  it("shows build --json's summary as the build prints it: every key, the problem's code, path and message", async () => {
    const example = JSON.parse(fencedBlock('Building every site', 'json')) as {
      sites: Array<{ config: string; name: string; errors: unknown[] }>;
    };
    // the example's two sites: shop builds, blog's hash is refused
    const dir = await project({ shop: { hash: 'shop-site-0001' }, blog: { hash: 'blog site' } });
    const result = await pushKit(dir, ['build', ...example.sites.map((site) => site.config), '--out', 'dist', '--json']);
    expect(result.code).toBe(1);
    const real = JSON.parse(result.stdout) as typeof example;
    expect(shape(example)).toEqual(shape(real));
    // what does not depend on the build's sizes is the same, word for word
    const { sites: exampleSites, ...exampleTop } = example;
    const { sites: realSites, ...realTop } = real;
    expect(realTop).toEqual(exampleTop);
    for (const [index, site] of exampleSites.entries()) {
      const { files: _files, ...rest } = site as typeof site & { files: unknown };
      expect(realSites[index]).toMatchObject(rest);
    }
  }, 60_000);

  it('shows validate --strict as it prints: a warning fails the run, a clean config is valid', async () => {
    const lines = fencedBlock('Checking every config', 'text').split('\n');
    const dir = await project({ shop: { hash: 'shop-site-0001' }, blog: { hash: 'blog-site-0001', origin: 'http://blog.example' } });
    const strict = await pushKit(dir, ['validate', 'site-configs/blog.json', 'site-configs/shop.json', '--strict']);
    expect(strict.code).toBe(1);
    expect([...strict.stderr.trim().split('\n'), ...strict.stdout.trim().split('\n')]).toEqual(lines);
    // without --strict the warning is still printed, and the run passes
    expect((await pushKit(dir, ['validate', 'site-configs/blog.json', 'site-configs/shop.json'])).code).toBe(0);
  }, 60_000);
});

/** Every file under `dir` (the repository's own: no node_modules, no test artifacts). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((file) => !/(^|\/)(node_modules|artifacts)\//.test(file));
}

describe('cited documents', () => {
  it('every *.md the tests and the docs cite, and every relative link of the docs, is a file of the repository', async () => {
    const citing = [...(await filesUnder('tests')), ...(await filesUnder('docs')), 'README.md', 'SECURITY.md'];
    const missing: string[] = [];
    let cited = 0;
    for (const file of citing) {
      const text = await readFile(join(root, file), 'utf8');
      const paths = [...text.matchAll(/(?<![\w/.-])((?:[\w.-]+\/)*[\w-]+\.md)\b/g)].map((match) => match[1]!);
      // a Markdown file's relative links, whatever they point at (`deploy/Dockerfile`)
      if (file.endsWith('.md'))
        for (const match of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) if (!/^[a-z]+:/.test(match[1]!)) paths.push(match[1]!);
      for (const path of paths) {
        cited += 1;
        // relative to the citing file (a link), or to the repository (a path in prose or a comment)
        if (![join(root, dirname(file), path), join(root, path)].some((candidate) => existsSync(candidate)))
          missing.push(`${file}: ${path}`);
      }
    }
    expect(cited).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });
});
