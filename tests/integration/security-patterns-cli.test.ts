// Issue 27, safe patterns, through the shipped bin: `push-kit validate` and `push-kit build` refuse a config
// whose `regex:` URL pattern can backtrack exponentially, one `FILE: field.path: message` line per pattern, and
// the build writes nothing for it; a config with a safe regular expression still builds.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const BAD = ['regex:^https://x/(x+x+)+y$', 'regex:(a*)*', 'regex:(a|a)*', 'regex:(a|aa)+'];
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'pk-security-patterns-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function configWith(name: string, includeUrls: string[]): Promise<string> {
  const base = JSON.parse(await readFile(join(root, 'site-configs/calligraphy.json'), 'utf8')) as Record<string, unknown>;
  delete base.$schema;
  const file = join(work, `${name}.json`);
  await writeFile(file, JSON.stringify({ ...base, includeUrls }));
  return file;
}

async function pushKit(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [join(root, 'bin/push-kit.js'), ...args], { cwd: work, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('push-kit validate and build refuse catastrophic regex: patterns', () => {
  it('validate names each one at its field', async () => {
    const file = await configWith('catastrophic', ['/blog/*', ...BAD]);
    const result = await pushKit(['validate', file]);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(BAD.length);
    BAD.forEach((pattern, index) => {
      expect(lines[index]).toContain(`${file}: includeUrls.${index + 1}: URL pattern "${pattern}" can take exponential time`);
    });
  }, 60_000);

  it('build writes nothing for such a config, and builds one with a safe regex', async () => {
    const bad = await configWith('catastrophic-build', [BAD[0]!]);
    const good = await configWith('safe-build', ['regex:^https://[^/]+/(?:blog|news)/\\d{4}/.*$']);
    const result = await pushKit(['build', bad, good, '--out', join(work, 'dist')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${bad}: includeUrls.0: URL pattern "${BAD[0]}" can take exponential time`);
    expect(existsSync(join(work, 'dist', 'catastrophic-build'))).toBe(false);
    expect(existsSync(join(work, 'dist', 'safe-build', 'push.js'))).toBe(true);
  }, 90_000);
});
