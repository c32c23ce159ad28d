// `push-kit webhooks` on the project's embedded database, as an owner runs it before `serve`: add (the secret
// printed once), a refused http URL and event name, rotate with an overlap, disable, remove.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, seedProjectDatabase } from '../support/cli-process.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let project: string;
let site: string;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'pk-webhooks-'));
  const init = await runCli(project, ['init', '--yes']);
  expect(init.status, init.stderr).toBe(0);
  await seedProjectDatabase(project);
  site = (await readdir(join(project, 'site-configs')))[0]!.replace(/\.json$/, '');
});

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('push-kit webhooks', () => {
  it('adds, refuses, rotates, disables and removes endpoints on the database', { timeout: 120_000 }, async () => {
    const added = await runCli(project, [
      'webhooks',
      'add',
      'https://203.0.113.9/hook',
      '--events',
      'subscriber.created,conversion',
      '--site',
      site,
    ]);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toMatch(
      /^webhook endpoint 1 added: https:\/\/203\.0\.113\.9\/hook\nsigning secret .*: whsec_[A-Za-z0-9+/]{43}=\n$/,
    );

    const http = await runCli(project, ['webhooks', 'add', 'http://127.0.0.1:9/hook', '--events', 'all', '--site', site]);
    expect(http.status).toBe(1);
    expect(http.stderr).toMatch(/^push-kit: url: must be https/);
    const unknown = await runCli(project, ['webhooks', 'add', 'https://203.0.113.9/x', '--events', 'conversion,clicks', '--site', site]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('--events: unknown event "clicks"');

    const rotated = await runCli(project, ['webhooks', 'rotate-secret', '1', '--overlap-hours', '2', '--site', site]);
    expect(rotated.status, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/new signing secret of webhook endpoint 1 \(shown once\): whsec_/);
    expect(rotated.stdout).toMatch(/the previous secret also signs until \d{4}-/);

    const disabled = await runCli(project, ['webhooks', 'disable', '1', '--site', site]);
    expect(disabled.stdout).toContain('https://203.0.113.9/hook');
    expect(disabled.stdout).toContain('DISABLED');
    expect(disabled.stdout).toContain('disabled by the owner');
    expect(disabled.stdout).toContain('events: subscriber.created, conversion');
    expect(disabled.stdout).not.toContain('whsec_');

    const removed = await runCli(project, ['webhooks', 'remove', '1', '--site', site]);
    expect(removed.status, removed.stderr).toBe(0);
  });
});
