// Issue 27, item 3: the state folder (.push-kit: VAPID keys, owner keys, the embedded database) is its user's alone.
// Everything under it is created 0700 / 0600 whatever the umask, the embedded database included (its template was
// copied with PGlite's 0755/0666 modes, so another user of the machine could read endpoints, secret hashes and
// orders, and corrupt the database); `startProvider` refuses a state folder, database folder or key file that others
// can open, naming the path and the chmod that fixes it.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { lstatSync, watch } from 'node:fs';
import { chmod, lstat, mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError, EXIT, fromServerError } from '../../cli/errors.ts';
import { ServerError } from '../../server/errors.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import { buildDashboard } from '../../server/dashboard/dashboard-build.ts';
import { startProvider } from '../../server/start-provider.ts';
import { embeddedDatabaseDir, legacyVapidKeyDir, ownerKeyFile, vapidKeyFile } from '../../server/state-paths.ts';
import { tempDir, testSite } from '../support/server.ts';

const run = promisify(execFile);

/** A second user of the machine: possible only where this process may act as one (root, with runuser). */
function canActAsNobody(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('runuser', ['-u', 'nobody', '--', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const runuser = canActAsNobody();

const removals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const remove of removals) await remove();
});

/** A project folder as a user's would be (0755: others may enter it) with no state folder yet. */
async function project(): Promise<string> {
  const dir = await tempDir('pushkit-private-');
  removals.push(dir.remove);
  await chmod(dir.path, 0o755);
  return dir.path;
}

/** Every path under `root` (itself included) whose mode lets group or others in, as `mode path`. */
async function openToOthers(root: string): Promise<string[]> {
  const found = await lstat(root);
  const here = found.mode & 0o077 && !found.isSymbolicLink() ? [`${(found.mode & 0o777).toString(8)} ${root}`] : [];
  if (!found.isDirectory()) return here;
  const inside = await Promise.all((await readdir(root)).map((entry) => openToOthers(join(root, entry))));
  return [...here, ...inside.flat()];
}

async function countEntries(root: string): Promise<number> {
  const entries = await readdir(root, { recursive: true });
  return entries.length;
}

/** Runs `fn` under the umask `mask` (0: the loosest), restoring the process's own after. */
async function withUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(previous);
  }
}

describe('the state folder is private', () => {
  it('a fresh embedded database: every folder under .push-kit is 0700 and every file 0600, even with umask 0', async () => {
    const stateDir = join(await project(), '.push-kit');
    await withUmask(0, async () => {
      await writeVapidKeyFile(vapidKeyFile(stateDir, 'letters'), generateVapidKeyPair());
      const provider = await startProvider({ sites: [testSite()], stateDir });
      try {
        const inserted = await fetch(`${provider.url}/syncSubscriptionAction.php`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            action: 'insert',
            hash: testSite().config.hash,
            subscription: { endpoint: 'https://fcm.googleapis.com/fcm/send/private-state', keys: { p256dh: 'x', auth: 'y' } },
          }),
        });
        expect(inserted.status).toBeLessThan(500);
        // while it runs: the database's folder shuts everyone else out, and what start wrote is private
        expect((await lstat(stateDir)).mode & 0o777).toBe(0o700);
        expect((await lstat(embeddedDatabaseDir(stateDir))).mode & 0o777).toBe(0o700);
        expect(await openToOthers(stateDir)).toEqual([]);
      } finally {
        await provider.close();
      }
    });
    // after a clean stop, with what PostgreSQL wrote at shutdown too (the walk covers the ~1000 database files)
    expect(await countEntries(stateDir)).toBeGreaterThan(900);
    expect(await openToOthers(stateDir)).toEqual([]);
  });

  it("the owner dashboard's build under .push-kit is private too, even with umask 0", async () => {
    const cacheDir = join(await project(), '.push-kit', 'dashboard');
    // what killed builds left: a process that is gone, and a live pid's folder older than any build; a concurrent
    // build's (a live process, written just now) is kept
    const dead = `.tmp-${spawnSync('true').pid}-00000000`;
    const reused = `.tmp-${process.pid}-11111111`;
    const live = `.tmp-${process.pid}-22222222`;
    for (const entry of [dead, reused, live]) await mkdir(join(cacheDir, entry), { recursive: true, mode: 0o700 });
    const dayAgo = new Date(Date.now() - 86_400_000);
    await utimes(join(cacheDir, reused), dayAgo, dayAgo);
    // the build's own temporary folder as it appears, before Vite writes into it (it was 0777 until narrowed at the end)
    const modes: string[] = [];
    const watcher = watch(cacheDir, (_event, name) => {
      if (!name?.startsWith('.tmp-') || [dead, reused, live].includes(name)) return;
      try {
        modes.push((lstatSync(join(cacheDir, name)).mode & 0o777).toString(8));
      } catch {
        // renamed into place
      }
    });
    const built = await withUmask(0, () => buildDashboard(cacheDir)).finally(() => watcher.close());
    expect(built.buildMs).toBeGreaterThan(0);
    expect(modes.length).toBeGreaterThan(0);
    expect(new Set(modes)).toEqual(new Set(['700']));
    expect(await openToOthers(cacheDir)).toEqual([]);
    expect((await readdir(cacheDir)).sort()).toEqual([live, built.hash].sort());
  }, 120_000);

  it('a database made before modes were narrowed (0666 files) is made private when it is opened', async () => {
    const stateDir = join(await project(), '.push-kit');
    const first = await startProvider({ sites: [testSite()], stateDir });
    await first.close();
    const dataDir = embeddedDatabaseDir(stateDir);
    await run('find', [dataDir, '-mindepth', '1', '-type', 'f', '-exec', 'chmod', '666', '{}', '+']);
    await run('find', [dataDir, '-mindepth', '1', '-type', 'd', '-exec', 'chmod', '755', '{}', '+']);
    expect((await openToOthers(stateDir)).length).toBeGreaterThan(900);
    const second = await startProvider({ sites: [testSite()], stateDir });
    expect(await openToOthers(stateDir)).toEqual([]);
    await second.close();
  });

  it('startProvider refuses a state folder, database folder or key file others can open, naming the path and the fix', async () => {
    const stateDir = join(await project(), '.push-kit');
    await writeVapidKeyFile(vapidKeyFile(stateDir, 'letters'), generateVapidKeyPair());
    const legacyDir = legacyVapidKeyDir(stateDir, 'letters');
    await writeVapidKeyFile(join(legacyDir, '0123456789ab.json'), generateVapidKeyPair());
    await mkdir(join(stateDir, 'owner-keys'), { mode: 0o700 });
    await writeFile(ownerKeyFile(stateDir, 'letters'), `${JSON.stringify({ sha256: 'a'.repeat(64) })}\n`, { mode: 0o600 });
    const provider = await startProvider({ sites: [testSite()], stateDir });
    await provider.close();

    const cases: { path: string; mode: number; fix: string }[] = [
      { path: stateDir, mode: 0o755, fix: `chmod 700 ${stateDir}` },
      { path: embeddedDatabaseDir(stateDir), mode: 0o750, fix: `chmod 700 ${embeddedDatabaseDir(stateDir)}` },
      { path: vapidKeyFile(stateDir, 'letters'), mode: 0o644, fix: `chmod 600 ${vapidKeyFile(stateDir, 'letters')}` },
      { path: ownerKeyFile(stateDir, 'letters'), mode: 0o620, fix: `chmod 600 ${ownerKeyFile(stateDir, 'letters')}` },
      // a legacy VAPID key of the ring (issue 29), and its folder
      { path: legacyDir, mode: 0o755, fix: `chmod 700 ${legacyDir}` },
      { path: join(legacyDir, '0123456789ab.json'), mode: 0o640, fix: `chmod 600 ${join(legacyDir, '0123456789ab.json')}` },
    ];
    for (const { path, mode, fix } of cases) {
      const before = (await lstat(path)).mode & 0o777;
      await chmod(path, mode);
      const refused = await startProvider({ sites: [testSite()], stateDir }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ServerError);
      expect(refused).toMatchObject({ code: 'E_STATE_NOT_PRIVATE' });
      const message = (refused as Error).message;
      expect(message).toContain(`${path} is open to other users`);
      expect(message).toContain(`(mode 0${mode.toString(8)})`);
      expect(message).toMatch(new RegExp(`run ${fix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`));
      // on the command line: the same words, exit code 3 (the environment), no stack
      let printed: unknown;
      try {
        fromServerError(refused);
      } catch (error) {
        printed = error;
      }
      expect(printed).toBeInstanceOf(CliError);
      expect(printed).toMatchObject({ exitCode: EXIT.ENVIRONMENT, message });
      await chmod(path, before);
    }
    // once fixed, it starts
    const again = await startProvider({ sites: [testSite()], stateDir });
    await again.close();
  });

  it.skipIf(!runuser)(
    `another user cannot read the database or the keys (${runuser ? 'as nobody, through runuser' : 'skipped: needs root and runuser to act as a second user'})`,
    async () => {
      const dir = await project();
      const stateDir = join(dir, '.push-kit');
      await writeVapidKeyFile(vapidKeyFile(stateDir, 'letters'), generateVapidKeyPair());
      await writeFile(join(dir, 'letters.json'), '{}\n', { mode: 0o644 });
      const provider = await startProvider({ sites: [testSite()], stateDir });
      await provider.close();
      const asNobody = (...command: string[]) =>
        run('runuser', ['-u', 'nobody', '--', ...command]).then(
          () => 'allowed',
          (error: { stderr?: string }) => error.stderr ?? 'refused',
        );
      // the control: nobody does read the project's own (public) files, so a refusal below is the modes' doing
      expect(await asNobody('cat', join(dir, 'letters.json'))).toBe('allowed');
      expect(await asNobody('ls', stateDir)).toMatch(/Permission denied/);
      expect(await asNobody('cat', join(embeddedDatabaseDir(stateDir), 'global', 'pg_control'))).toMatch(/Permission denied/);
      expect(await asNobody('cat', vapidKeyFile(stateDir, 'letters'))).toMatch(/Permission denied/);
      expect(await asNobody('touch', join(embeddedDatabaseDir(stateDir), 'planted'))).toMatch(/Permission denied/);
    },
  );
});
