// `push-kit validate` makes every check `build` and `serve` make, across all the files given, and lists every
// problem of a file at once; `--strict` fails on warnings (issue 28). Runs the real bin, as a user would.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

async function pushKit(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [join(root, 'bin/push-kit.js'), ...args], { cwd: root, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const minimal = JSON.parse(await readFile(join(root, 'tests/fixtures/configs/minimal.json'), 'utf8')) as Record<string, unknown>;
delete minimal.$schema;

async function configFiles(configs: Record<string, Record<string, unknown>>): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), 'pk-validate-'));
  const files: Record<string, string> = {};
  for (const [path, config] of Object.entries(configs)) {
    const file = join(dir, path);
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, JSON.stringify({ ...minimal, ...config }));
    files[path] = file;
  }
  return files;
}

describe('push-kit validate', () => {
  it('lists a type error and the URL pattern, condition and trigger errors of the same file together', async () => {
    const { 'bad.json': file } = await configFiles({
      'bad.json': { companyName: 5, includeUrls: ['products/*'], segmentations: [{ sid: 1, ss: '(((' }], triggers: { when: 'delay and' } },
    });
    const result = await pushKit(['validate', file!]);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toContain(`${file}: companyName: Invalid input: expected string, received number`);
    expect(lines.some((line) => line.startsWith(`${file}: includeUrls.0: URL pattern "products/*"`))).toBe(true);
    expect(lines.some((line) => line.startsWith(`${file}: segmentations.0.ss: `))).toBe(true);
    expect(lines.some((line) => line.startsWith(`${file}: triggers.when: `))).toBe(true);
  }, 60_000);

  it('refuses an https origin calling an http provider (mixed content), even beside a type error; localhost is allowed', async () => {
    const files = await configFiles({
      'mixed.json': { serverSyncUrl: 'http://push.minimal.example' },
      'services.json': { hash: 'services-site-01', companyName: 7, servicesServerURL: 'http://services.minimal.example' },
      'local.json': { hash: 'local-site-0001', serverSyncUrl: 'http://localhost:8787' },
    });
    const result = await pushKit(['validate', files['mixed.json']!, files['services.json']!, files['local.json']!]);
    expect(result.code).toBe(1);
    const mixed =
      "must be an https URL: the site's origin https://minimal.example is https, and the browser blocks every http call from its pages as mixed content";
    expect(result.stderr).toContain(`${files['mixed.json']}: serverSyncUrl: ${mixed}`);
    expect(result.stderr).toContain(`${files['services.json']}: servicesServerURL: ${mixed}`);
    expect(result.stderr).not.toContain(files['local.json']);
    expect(result.stdout).toContain(`${files['local.json']}: valid`);
  }, 60_000);

  it('refuses two files with one hash, or one base name, naming both files', async () => {
    const files = await configFiles({
      'a.json': {},
      'b.json': { companyName: 'Other' },
      'eu/shop.json': { hash: 'shop-site-eu-01' },
      'us/shop.json': { hash: 'shop-site-us-01' },
    });
    const result = await pushKit(['validate', ...Object.values(files)]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `${files['b.json']}: hash: "minimal-site-01" is also the hash of ${files['a.json']}: the provider knows a site by its hash, so serve would host only one of them`,
      `${files['us/shop.json']}: (file): ${files['eu/shop.json']} is also named "shop" (the file's base name): build writes both into one folder <out>/shop, and serve hosts only one`,
    ]);
    expect(result.stdout).toContain(`${files['a.json']}: valid`);
    expect(result.stdout).not.toContain(`${files['b.json']}: valid`);
  }, 60_000);

  it("reports build's warnings; --strict makes them fail", async () => {
    const { 'http.json': file } = await configFiles({ 'http.json': { origin: 'http://plain.example' } });
    const warning = `${file}: childWindowOrigin: is not set: this http site's child window shares`;
    const plain = await pushKit(['validate', file!]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain(warning);
    const strict = await pushKit(['validate', '--strict', file!]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(warning);
    expect(strict.stdout).not.toContain('valid');
  }, 60_000);
});
