import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

async function pushKit(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', ['bin/push-kit.js', ...args], { cwd: root, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('push-kit init (spawned)', () => {
  it('writes a config from --answers that validate accepts, keys 0600, owner key hash', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pk-init-'));
    const answersFile = join(dir, 'answers.json');
    await writeFile(
      answersFile,
      JSON.stringify({ companyName: 'Ink & Quill', origin: 'https://quill.example', promptStyle: 'chicklet', shopConnected: true }),
    );
    const init = await pushKit(['init', '--answers', answersFile, '--dir', dir]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('npx push-kit build site-configs/ink-quill.json');
    const configFile = join(dir, 'site-configs', 'ink-quill.json');
    const validate = await pushKit(['validate', configFile]);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    const build = await pushKit(['build', configFile, '--out', join(dir, 'dist')]);
    expect(build.code, build.stdout + build.stderr).toBe(0);
    expect(existsSync(join(dir, 'dist', 'ink-quill', 'push.js'))).toBe(true);

    const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
    expect(config).toMatchObject({ isNativeOptin: 0, isShopifyConnectedAccount: true });
    // no push-kit installed in the folder: the schema of the push-kit that wrote it, this repository's
    expect(resolve(dir, 'site-configs', config.$schema as string)).toBe(join(root, 'schema', 'site-config.schema.json'));
    expect(config.hash).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const ownerKeyFile = join(dir, '.push-kit', 'owner-keys', 'ink-quill.json');
    expect((await stat(ownerKeyFile)).mode & 0o777).toBe(0o600);
    const printedKey = /^ {2}(pk_[A-Za-z0-9_-]{32})$/m.exec(init.stdout)?.[1];
    const { createHash } = await import('node:crypto');
    expect(JSON.parse(await readFile(ownerKeyFile, 'utf8'))).toEqual({ sha256: createHash('sha256').update(printedKey!).digest('hex') });
    expect((await stat(join(dir, '.push-kit', 'keys', 'ink-quill.json'))).mode & 0o777).toBe(0o600);

    // the private state folder is kept out of git, once
    expect(init.stdout).toContain(`Created ${join(dir, '.gitignore')} with .push-kit/`);
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('.push-kit/\n');

    // a second init for the same site: the command line's error format and exit code, nothing written
    const again = await pushKit(['init', '--answers', answersFile, '--dir', dir]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(`push-kit: ${configFile} already exists; pass --force to overwrite it`);
    expect(await readFile(configFile, 'utf8')).toBe(JSON.stringify(config, null, 2) + '\n');
    const forced = await pushKit(['init', '--answers', answersFile, '--dir', dir, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).not.toContain('.gitignore');
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('.push-kit/\n');
  }, 60_000);

  it('init --yes writes a config whose first build warns of nothing, with no child window texts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pk-init-yes-'));
    expect((await pushKit(['init', '--yes', '--dir', dir])).code).toBe(0);
    const configFile = join(dir, 'site-configs', 'my-site.json');
    const build = await pushKit(['build', configFile, '--out', join(dir, 'dist')]);
    expect(build.code).toBe(0);
    expect(build.stderr).toBe('');
    // a localhost origin is a secure context: no child window, so none of its texts
    expect(JSON.parse(await readFile(configFile, 'utf8'))).not.toHaveProperty('style');
  }, 60_000);

  it('prints answers.<field>: message for wrong answers and writes nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pk-init-'));
    const answersFile = join(dir, 'answers.json');
    await writeFile(answersFile, JSON.stringify({ origin: 'not a url', delaySeconds: -1 }));
    const init = await pushKit(['init', '--answers', answersFile, '--dir', dir]);
    expect(init.code).toBe(1);
    expect(init.stderr).toContain('answers.origin: must be an absolute http(s) URL');
    expect(init.stderr).toMatch(/answers\.delaySeconds: /);
    expect(await readdir(dir)).toEqual(['answers.json']);
  }, 60_000);

  it('without a terminal and without --yes or --answers, says so and exits 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pk-init-'));
    const init = await pushKit(['init', '--dir', dir]);
    expect(init.code).toBe(1);
    expect(init.stderr).toContain('push-kit init needs a terminal; use --yes or --answers FILE');
    expect(existsSync(join(dir, 'site-configs'))).toBe(false);
  }, 60_000);
});
