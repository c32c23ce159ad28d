// `push-kit dev` as a user runs it: a real process in a fresh folder, with any config (here an https production
// one), on free local ports; stopped with SIGTERM. A port named with a flag and already taken is one line, exit 3.
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { seedProjectDatabase } from '../support/cli-process.ts';
import { startDev } from '../support/dev-process.ts';
import { timeoutForProcesses } from '../support/process-ready.ts';
import { tempDir } from '../support/server.ts';

const BIN = fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url));
const EXAMPLE_CONFIG = fileURLToPath(new URL('../../site-configs/calligraphy.json', import.meta.url));
const PRODUCTION_CONFIG = {
  hash: 'production-shop-01',
  companyName: 'Production Shop',
  origin: 'https://www.production-shop.example',
  serverSyncUrl: 'https://push.production-shop.example',
  servicesServerURL: 'https://services.production-shop.example',
  vapidPublicKey: 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s',
  includeUrls: ['/products/*'],
};
const removals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const remove of removals) await remove();
});

/** Runs dev until it prints its URLs, hands them to `use`, then stops it with SIGTERM. */
async function devOnce(
  cwd: string,
  args: string[],
  use: (urls: { site: string; provider: string }) => Promise<void>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ output: string; code: number | null }> {
  const dev = await startDev([process.execPath, BIN, 'dev', ...args], cwd, { ...env, DATABASE_URL: '', NO_COLOR: '1' });
  let code: number | null;
  try {
    await use(dev);
  } finally {
    code = await dev.stop();
  }
  return { output: dev.output(), code };
}

function runToExit(cwd: string, args: string[]): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'dev', ...args], { cwd, env: { ...process.env, DATABASE_URL: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ stdout, stderr, code }));
  });
}

async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, server };
}

// Each test has its own folder and free ports, and waits on its own dev process: they run side by side, each
// allowed its process's start deadline.
describe.concurrent('push-kit dev', { timeout: timeoutForProcesses(1) }, () => {
  it("runs the project's https production config on local ports: the snippet on every path, the provider, its URLs", async () => {
    const dir = await tempDir('pushkit-dev-');
    removals.push(dir.remove);
    // a user's project: no config named, the one in site-configs/ is the site
    await mkdir(join(dir.path, 'site-configs'));
    await writeFile(join(dir.path, 'site-configs', 'shop.json'), JSON.stringify(PRODUCTION_CONFIG));
    // making the embedded database is server-storage's (about 2 s of CPU a start): dev opens a migrated copy
    await seedProjectDatabase(dir.path);
    let page = '';
    let pushJs = '';
    let sync: unknown;
    const run = await devOnce(dir.path, ['--port', '0', '--site-port', '0'], async ({ site, provider }) => {
      // a path the site's includeUrls name, where the site has no page of its own
      const product = await fetch(`${site}/products/shoes`);
      expect(product.status).toBe(200);
      page = await product.text();
      pushJs = await (await fetch(`${site}/push.js`)).text();
      const response = await fetch(`${provider}/syncSubscriptionAction.php`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: site },
        body: new URLSearchParams({ hash: PRODUCTION_CONFIG.hash, action: 'get-subscriberid-from-server' }),
      });
      sync = { status: response.status, origin: response.headers.get('access-control-allow-origin') };
      expect((await fetch(`${site}/local-page.js`)).status).toBe(200);
    });
    expect(run.code, run.output).toBe(0);
    const provider = /^ {2}provider +(http:\/\/localhost:\d+)\//m.exec(run.output)![1]!;
    const site = /^ {2}local page +(http:\/\/localhost:\d+)\//m.exec(run.output)![1]!;
    expect(page).toContain('<script async src="/push.js"></script>');
    expect(pushJs).toContain(provider);
    expect(pushJs).not.toContain('production-shop.example');
    expect(sync).toMatchObject({ origin: site });
    // the send example is this site's, and needs neither key nor URL: send finds the provider by itself
    expect(run.output).toContain("send a notification: npx push-kit send --site shop --title 'News from Production Shop' --body ");
    expect(run.output).not.toMatch(/--key|--provider|New submissions/);
    const devConfig = JSON.parse(await readFile(join(dir.path, '.push-kit', 'dev', 'shop.json'), 'utf8')) as Record<string, string>;
    expect(devConfig).toMatchObject({ origin: site, serverSyncUrl: provider, servicesServerURL: provider, hash: PRODUCTION_CONFIG.hash });
  });

  it("serves the example site for the example's config", async () => {
    const dir = await tempDir('pushkit-dev-example-');
    removals.push(dir.remove);
    await seedProjectDatabase(dir.path);
    let title = '';
    // the example is the checkout's (`npm start`), not the package's: the sources run, even when the suite runs
    // every other command on the compiled package (PUSHKIT_COMPILED_CLI, tests/run-all.sh)
    const { PUSHKIT_COMPILED_CLI: _compiled, ...checkout } = process.env;
    const run = await devOnce(
      dir.path,
      [EXAMPLE_CONFIG, '--port', '0', '--site-port', '0'],
      async ({ site }) => {
        title = /<title>([^<]*)<\/title>/.exec(await (await fetch(`${site}/`)).text())?.[1] ?? '';
      },
      checkout,
    );
    expect(run.code, run.output).toBe(0);
    expect(title).toBe('Calligraphy Submissions');
  });

  it.each([
    ['--port', 'port'],
    ['--site-port', 'site-port'],
  ])('stops with one line and exit 3 when the port of %s is taken', async (option, flag) => {
    const dir = await tempDir('pushkit-dev-taken-');
    removals.push(dir.remove);
    const held = await holdPort();
    try {
      const other = option === '--port' ? ['--site-port', '0'] : ['--port', '0'];
      const result = await runToExit(dir.path, [EXAMPLE_CONFIG, option, String(held.port), ...other]);
      expect(result.code).toBe(3);
      expect(result.stderr).toBe(`push-kit: port ${held.port} is in use: choose another with --${flag}\n`);
    } finally {
      held.server.close();
    }
  });
});
