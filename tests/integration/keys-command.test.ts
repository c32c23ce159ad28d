// `push-kit keys` as a site owner runs it in a project folder: the key `init` printed, a rotation refused while
// the provider holds the embedded database, a rotation after it stopped, and the provider then taking only the
// new key.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, seedProjectDatabase, startServe } from '../support/cli-process.ts';
import { timeoutForProcesses } from '../support/process-ready.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let project: string;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'pk-keys-'));
});
afterAll(() => rm(project, { recursive: true, force: true }));

const statusWith = async (url: string, key: string) =>
  (await fetch(`${url}/api/v1/sites/my-site/stats`, { headers: { authorization: `Bearer ${key}` } })).status;

describe('push-kit keys', () => {
  // init, keys, serve, rotate, keys, rotate, serve, keys: one after the other
  const timeout = timeoutForProcesses(8);
  it('says where the key is, refuses to rotate under a running provider, and rotates once it stopped', { timeout }, async () => {
    const init = await runCli(project, ['init', '--yes']);
    expect(init.status, init.stderr).toBe(0);
    const initKey = /^ {2}(pk_[A-Za-z0-9_-]{32})$/m.exec(init.stdout)![1]!;
    await seedProjectDatabase(project);

    const waiting = await runCli(project, ['keys', '--site', 'my-site']);
    expect(waiting.stdout).toBe(
      'my-site: the owner key push-kit init printed is waiting in .push-kit/owner-keys/my-site.json; the provider takes it at its next start\n',
    );

    const provider = await startServe(project);
    try {
      expect(await statusWith(provider.url, initKey)).toBe(200);
      const refused = await runCli(project, ['keys', 'rotate', '--site', 'my-site']);
      expect(refused.status).toBe(3); // the environment stopped it (README, exit codes)
      expect(refused.stderr).toContain('cannot open the database .push-kit/db');
      expect(refused.stderr).toContain('stop it (Ctrl+C), run push-kit keys rotate --site my-site, then start it again');
    } finally {
      await provider.stop();
    }

    const listed = await runCli(project, ['keys', '--site', 'my-site']);
    expect(listed.stdout).toMatch(
      /^my-site: an owner key exists \(made \d{4}-\d\d-\d\dT[\d:.]+Z\); push-kit keys rotate --site my-site replaces it\n$/,
    );
    const rotated = await runCli(project, ['keys', 'rotate', '--site', 'my-site']);
    expect(rotated.status, rotated.stderr).toBe(0);
    const newKey = /^ {2}(pk_[A-Za-z0-9_-]{32})$/m.exec(rotated.stdout)?.[1];
    expect(newKey).toBeDefined();
    expect(newKey).not.toBe(initKey);
    // a new database would take init's file: it names the new key now
    const initFile = JSON.parse(await readFile(join(project, '.push-kit', 'owner-keys', 'my-site.json'), 'utf8')) as { sha256: string };
    const { createHash } = await import('node:crypto');
    expect(initFile.sha256).toBe(createHash('sha256').update(newKey!).digest('hex'));

    const again = await startServe(project);
    try {
      expect(await statusWith(again.url, newKey!)).toBe(200);
      expect(await statusWith(again.url, initKey)).toBe(401);
    } finally {
      await again.stop();
    }

    const unknown = await runCli(project, ['keys', '--site', 'nope']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('push-kit: --site: no valid site config named "nope" (sites: my-site)\n');
  });
});
