import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runBuild, type BuildSummary } from '../../cli/commands/build.ts';

const work = await mkdtemp(join(tmpdir(), 'pk-build-command-'));
afterAll(() => rm(work, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

describe('push-kit build', () => {
  it('builds the good configs, prints FILE: field.path: message for a bad one and exits 1', async () => {
    const bad = join(work, 'bad.json');
    await writeFile(bad, JSON.stringify({ hash: 'x', extra: true }));
    const errors: string[] = [];
    const logs: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    vi.spyOn(console, 'log').mockImplementation((line: string) => void logs.push(line));
    const out = join(work, 'dist');
    const code = await runBuild([bad, 'tests/fixtures/configs/minimal.json'], { out });
    expect(code).toBe(1);
    expect(errors).toContain(`${bad}: hash: must be 8 to 64 letters, digits, "_" or "-"`);
    expect(errors).toContain(`${bad}: extra: unknown field`);
    expect(await readdir(out)).toEqual(['minimal']);
    expect(logs.at(-1)).toBe(`1 site built into ${out}, 1 failed`);
  });

  it('prints a progress line per site on a terminal', async () => {
    const logs: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void logs.push(line));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const wasTty = process.stdout.isTTY;
    process.stdout.isTTY = true;
    try {
      await runBuild(['tests/fixtures/configs/minimal.json', join(work, 'missing.json')], { out: join(work, 'tty') });
    } finally {
      process.stdout.isTTY = wasTty;
    }
    expect(logs[0]).toMatch(/^✓ minimal {2}push\.js \d+\.\d KB gzip$/);
    expect(logs[1]).toBe('✗ missing');
  });

  it('refuses a second config with the same name instead of building both into one folder', async () => {
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const twin = join(work, 'twin');
    const { mkdir, copyFile } = await import('node:fs/promises');
    await mkdir(twin, { recursive: true });
    await copyFile('tests/fixtures/configs/minimal.json', join(twin, 'minimal.json'));
    const out = join(work, 'twins');
    expect(await runBuild(['tests/fixtures/configs/minimal.json', join(twin, 'minimal.json')], { out })).toBe(1);
    expect(errors).toEqual([
      `${join(twin, 'minimal.json')}: (file): tests/fixtures/configs/minimal.json is also named "minimal" and both would build into ${out}/minimal`,
    ]);
    expect(await readdir(out)).toEqual(['minimal']);
  });

  it('--json prints one machine-readable summary per site on stdout and keeps the exit code', async () => {
    const bad = join(work, 'json-bad.json');
    await writeFile(bad, JSON.stringify({ hash: 'x' }));
    const logs: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void logs.push(line));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const out = join(work, 'json');
    const code = await runBuild(['tests/fixtures/configs/minimal.json', bad], { out, json: true });
    expect(code).toBe(1);
    expect(logs).toHaveLength(1);
    const summary = JSON.parse(logs[0]!) as BuildSummary;
    expect(summary).toMatchObject({ ok: false, out, built: 1, failed: 1 });
    const [minimal, failed] = summary.sites;
    expect(minimal).toMatchObject({
      config: 'tests/fixtures/configs/minimal.json',
      name: 'minimal',
      ok: true,
      dir: join(out, 'minimal'),
      errors: [],
    });
    expect(minimal!.files.find((file) => file.path === 'push.js')).toEqual({
      path: 'push.js',
      raw: expect.any(Number),
      gzip: expect.any(Number),
      brotli: expect.any(Number),
    });
    expect(failed).toMatchObject({ config: bad, name: 'json-bad', ok: false, files: [] });
    expect(failed!.errors).toContainEqual({ code: 'E_CONFIG_FIELD', path: 'hash', message: 'must be 8 to 64 letters, digits, "_" or "-"' });

    logs.length = 0;
    expect(await runBuild(['tests/fixtures/configs/minimal.json'], { out, json: true })).toBe(0);
    expect(JSON.parse(logs[0]!)).toMatchObject({ ok: true, built: 1, failed: 0 });
  });

  it('exits 0 when every config builds', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
    expect(await runBuild(['tests/fixtures/configs/minimal.json'], { out: join(work, 'ok') })).toBe(0);
  });
});
