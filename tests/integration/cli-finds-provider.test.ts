// `send`, `campaigns` and `keys` while `serve` holds the embedded database, as the README's flow runs them: no
// --key, no --provider; the provider's file `.push-kit/provider.json` (0600) names it. A planted or stale file
// (another host's URL, open to others, a process that does not hold the database) is ignored, and its token never
// leaves: a recorder on this machine stands for the host it would go to.
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, seedProjectDatabase, startServe, type ServeProcess } from '../support/cli-process.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutForProcesses } from '../support/process-ready.ts';

let project: string;
let serve: ServeProcess;
let recorder: { server: Server; url: string; authorizations: string[] };

// each hook and test may take its processes' deadlines (a serve to its ready line, commands to their exit)
const one = { timeout: timeoutForProcesses(1) };
const two = { timeout: timeoutForProcesses(2) };

const providerFile = () => join(project, '.push-kit', 'provider.json');

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'pk-finds-'));
  const init = await runCli(project, ['init', '--yes']);
  expect(init.status, init.stderr).toBe(0);
  // making the database is not this file's subject (package-install's init and serve make one)
  await seedProjectDatabase(project);
  serve = await startServe(project);
  const authorizations: string[] = [];
  const server = createServer((request, response) => {
    authorizations.push(request.headers.authorization ?? '');
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"success","campaigns":[]}');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  recorder = { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, authorizations };
}, two.timeout); // init, serve

afterAll(async () => {
  if (serve.child.exitCode === null) serve.child.kill('SIGTERM');
  recorder.server.close();
  await rm(project, { recursive: true, force: true });
});

describe('the command line finds the running provider', () => {
  it('send, campaigns, webhooks and keys work without --key while serve holds the database; the file goes when it stops', two, async () => {
    expect((await stat(providerFile())).mode & 0o777).toBe(0o600);
    const [sent, status] = await Promise.all([
      runCli(project, ['send', '--site', 'my-site', '--title', 'Hello', '--body', 'First notification']),
      runCli(project, ['keys', '--site', 'my-site']),
    ]);
    expect(sent.stderr).toBe('');
    expect(sent.stdout).toContain(`(sent by the provider at ${serve.url})`);
    expect(sent.stdout).toContain('sent to 0: 0 delivered, 0 expired, 0 failed');
    expect(status.stdout).toMatch(/^my-site: an owner key exists \(made \d{4}-[\d-]+T[\d:.]+Z\); push-kit keys rotate --site my-site/);
    // --provider naming the same provider gets its token; another URL needs the owner key
    const [listed, same, other, webhooks] = await Promise.all([
      runCli(project, ['campaigns', '--site', 'my-site']),
      runCli(project, ['campaigns', '--site', 'my-site', '--provider', serve.url]),
      runCli(project, ['campaigns', '--site', 'my-site', '--provider', recorder.url]),
      runCli(project, ['webhooks', '--site', 'my-site']),
    ]);
    expect(webhooks.stderr).toBe('');
    expect(webhooks.status).toBe(0);
    expect(listed.stdout).toMatch(/^ +1 {2}done {7}"Hello"/m);
    expect(same.stdout).toBe(listed.stdout);
    expect(other.stderr).toContain("--provider: needs the site's owner key");
    expect(recorder.authorizations).toEqual([]);
  });

  it.each([
    [
      'a URL of another host',
      (file: Record<string, unknown>) => ({ ...file, url: 'http://attacker.invalid:8787' }),
      0o600,
      'is not an address of this machine',
    ],
    ['a file others may write', (file: Record<string, unknown>) => ({ ...file, url: recorder.url }), 0o644, 'others may read or change it'],
    [
      'a process that does not hold the database',
      (file: Record<string, unknown>) => ({ ...file, url: recorder.url, pid: process.pid }),
      0o600,
      `process ${process.pid} does not hold .push-kit/db`,
    ],
  ])('ignores a provider file with %s, and sends its token nowhere', one, async (_name, plant, mode, why) => {
    const real = await readFile(providerFile(), 'utf8');
    try {
      await writeFile(providerFile(), JSON.stringify(plant(JSON.parse(real) as Record<string, unknown>)));
      await chmod(providerFile(), mode);
      const refused = await runCli(project, ['campaigns', '--site', 'my-site']);
      expect(refused.status).toBe(3);
      expect(refused.stderr).toContain(`.push-kit/provider.json is ignored: `);
      expect(refused.stderr).toContain(why);
      expect(refused.stderr).not.toContain('unknown host');
      expect(recorder.authorizations).toEqual([]);
    } finally {
      await writeFile(providerFile(), real, { mode: 0o600 });
      await chmod(providerFile(), 0o600);
    }
  });

  it('a stopped provider removes its file; one left by a dead process is ignored', two, async () => {
    const real = await readFile(providerFile(), 'utf8');
    serve.child.kill('SIGTERM');
    await new Promise((resolve) => serve.child.once('exit', resolve));
    expect(existsSync(providerFile())).toBe(false);
    await writeFile(providerFile(), real, { mode: 0o600 }); // as after kill -9
    const direct = await runCli(project, ['campaigns', '--site', 'my-site']);
    expect(direct.stderr).toBe('');
    expect(direct.stdout).toMatch(/^ +1 {2}done/m);
  });
});
