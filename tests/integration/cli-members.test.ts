// `push-kit members` on the project's embedded database, as an owner runs it before `serve`: a member added with a
// key (printed once) and one with a one-time sign-in link to the dashboard, the list, a new role, a removal, and a
// wrong role refused before anything is opened. Each change is in the audit log as the command line's, and the
// database the commands opened is left private, as they found it open to others (made before modes were narrowed).
import { execFile } from 'node:child_process';
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runCli, seedProjectDatabase } from '../support/cli-process.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.ts';
import { timeoutForProcesses } from '../support/process-ready.ts';

/** Six runs of the command line, each a Node start and an open of the embedded database (10 to 20 s at load 17). */
const RUNS_MS = timeoutForProcesses(6);

let project: string;
let site: string;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'pk-members-'));
  const init = await runCli(project, ['init', '--yes']);
  expect(init.status, init.stderr).toBe(0);
  await seedProjectDatabase(project);
  const dataDir = join(project, '.push-kit', 'db');
  await promisify(execFile)('sh', ['-c', 'chmod 755 "$1" && find "$1" -mindepth 1 -type f -exec chmod 666 {} +', 'sh', dataDir]);
  site = (await readdir(join(project, 'site-configs')))[0]!.replace(/\.json$/, '');
});

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('push-kit members', () => {
  it('adds with a key or a sign-in link, lists, changes a role and removes, on the database', { timeout: RUNS_MS }, async () => {
    const wrong = await runCli(project, ['members', 'add', '--name', 'Ana', '--role', 'admin', '--site', site]);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('--role: must be one of viewer, editor, owner');

    const linked = await runCli(project, ['members', 'add', '--name', 'Ana', '--role', 'editor', '--link', '--site', site]);
    expect(linked.status, linked.stderr).toBe(0);
    expect(linked.stdout).toMatch(/^Ana added to \S+ as an? editor \(member (m_\w+)\)\n/);
    expect(linked.stdout).toMatch(/\n {2}https?:\/\/\S+\/dashboard\/#sign-in=pl_[A-Za-z0-9_-]{43}\n$/);
    expect(linked.stdout).not.toContain('pk_');

    const keyed = await runCli(project, ['members', 'add', '--name', 'Vic', '--role', 'viewer', '--site', site]);
    expect(keyed.status, keyed.stderr).toBe(0);
    expect(keyed.stdout).toMatch(/their key \(shown once.*\): pk_[A-Za-z0-9_-]{32}\n$/);
    const vic = /\(member (m_\w+)\)/.exec(keyed.stdout)![1]!;

    const role = await runCli(project, ['members', 'role', vic, '--role', 'editor', '--site', site]);
    expect(role.stdout).toBe(`Vic (${vic}) is now an editor\n`);
    const removed = await runCli(project, ['members', 'remove', vic, '--site', site]);
    expect(removed.status, removed.stderr).toBe(0);

    const list = await runCli(project, ['members', 'list', '--site', site]);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^m_\w+ +editor +Ana {2}\(sign-in link unused, works until \d{4}-/);
    expect(list.stdout).not.toContain('Vic');

    const stateDir = join(project, '.push-kit');
    const entries = [stateDir, ...(await readdir(stateDir, { recursive: true })).map((entry) => join(stateDir, entry))];
    const open: string[] = [];
    for (const path of entries) if ((await lstat(path)).mode & 0o077) open.push(path);
    expect(entries.length).toBeGreaterThan(900);
    expect(open).toEqual([]);

    const db = await openDatabase({ dataDir: join(project, '.push-kit', 'db') });
    try {
      const { rows } = await db.query<{ member_name: string; action: string }>('SELECT member_name, action FROM audit_log ORDER BY id');
      expect(rows).toEqual([
        { member_name: 'push-kit command line', action: 'member.add' },
        { member_name: 'push-kit command line', action: 'member.add' },
        { member_name: 'push-kit command line', action: 'member.role' },
        { member_name: 'push-kit command line', action: 'member.remove' },
      ]);
    } finally {
      await db.close();
    }
  });
});
