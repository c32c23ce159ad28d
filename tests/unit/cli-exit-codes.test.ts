// The push-kit process: a known error prints `push-kit: <message>` without a stack (with it under --debug), and
// the exit code says what kind of failure it was (README, "Exit codes"). Runs the real bin, as a user would.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const CONFIG = join(root, 'site-configs/calligraphy.json');
const STACK_LINE = /^\s+at /m;

async function pushKit(args: string[], cwd = root, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [join(root, 'bin/push-kit.js'), ...args], {
      cwd,
      timeout: 60_000,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('push-kit exit codes', () => {
  it('1 for an invalid config, with FILE: field.path: message', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pk-exit-'));
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ hash: 'x' }));
    const result = await pushKit(['validate', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}: hash: must be 8 to 64 letters, digits, "_" or "-"`);
  }, 60_000);

  it('1 for a refused option value, as push-kit: <message> and no stack', async () => {
    const result = await pushKit(['serve', '--port', 'eighty', '--sites', CONFIG]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('push-kit: --port: "eighty" is not a port number (0 to 65535)');
  }, 60_000);

  it('1 for a --trust-proxy that is not true, false or proxy addresses (a hop count included)', async () => {
    const result = await pushKit(['serve', '--port', '0', '--trust-proxy', '1', '--sites', CONFIG]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'push-kit: --trust-proxy: "1" is not true, false or a list of proxy addresses (127.0.0.1,10.0.0.0/8)',
    );
  }, 60_000);

  it('1 for a PUSHKIT_CLAIM_LEASE_SECONDS that is not a number of seconds from 2 to 3600, before anything starts', async () => {
    const result = await pushKit(['serve', '--port', '0', '--sites', CONFIG], root, { PUSHKIT_CLAIM_LEASE_SECONDS: '1' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'push-kit: PUSHKIT_CLAIM_LEASE_SECONDS: "1" is not a number of seconds (a whole number from 2 to 3600)',
    );
  }, 60_000);

  it('2 for a command line commander refuses', async () => {
    const result = await pushKit(['build', '--no-such-option', CONFIG]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--no-such-option'");
  }, 60_000);

  it('3 for a database that cannot be reached; --debug adds the stack', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pk-exit-'));
    const args = ['serve', '--port', '0', '--sites', CONFIG, '--database', 'postgres://push:secret@127.0.0.1:1/none'];
    const plain = await pushKit(args, dir);
    expect(plain.code).toBe(3);
    expect(plain.stderr).toMatch(/^push-kit: cannot open the database postgres:\/\/push:\*\*\*@127\.0\.0\.1:1\/none: /m);
    expect(plain.stderr).not.toMatch(STACK_LINE);
    const debug = await pushKit(['--debug', ...args], dir);
    expect(debug.code).toBe(3);
    expect(debug.stderr).toMatch(STACK_LINE);
  }, 60_000);
});
