// push-kit as an integrator gets it: `npm pack` (its prepack builds the compiled package), the tarball installed
// into a fresh project offline from the npm cache, then the README's "Use it in your project" steps with the
// installed bin: init --yes, build --json, serve (the dashboard page and its files, a sync insert) and send;
// then `push-kit dev` of the project's own config and the programmatic startProvider.
// Nothing here runs the repository's sources: the project has no tsx, TypeScript or Vite.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerLockfile } from '../support/consumer-lockfile.ts';
import { startDev } from '../support/dev-process.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../support/throwaway-postgres.ts';
import { createSubscriberKeys, decryptPushBody, startFakePushService, type FakePushService } from '../support/fake-push-service.ts';

const run = promisify(execFile);
const REPOSITORY = resolve(import.meta.dirname, '../..');
const { version } = JSON.parse(await readFile(join(REPOSITORY, 'package.json'), 'utf8')) as { version: string };

let work: string;
let project: string;
let tarball: string;
let service: FakePushService;
const installOutput: string[] = [];

const bin = () => join(project, 'node_modules', '.bin', 'push-kit');
const env = () => ({
  ...process.env,
  DATABASE_URL: '',
  NO_COLOR: '1',
  NODE_EXTRA_CA_CERTS: service.certPath,
  PUSHKIT_PUSH_SERVICES: service.origin,
});

async function pushKit(args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  try {
    const { stdout, stderr } = await run(bin(), args, { cwd: project, env: env(), timeout: 60_000 });
    return { code: 0, stdout, stderr, ms: performance.now() - started };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr, ms: performance.now() - started };
  }
}

function startServe(
  command = [bin(), 'serve', '--port', '0'],
  cwd = project,
  environment: NodeJS.ProcessEnv = env(),
): Promise<{ url: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(command[0]!, command.slice(1), { cwd, env: environment });
  const stop = async () => {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((done) => child.once('exit', done));
  };
  return new Promise((resolveStart, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/[\d.]+:\d+) /.exec(output)?.[1]?.replace('0.0.0.0', '127.0.0.1');
      if (url && output.includes('Press Ctrl+C')) {
        clearTimeout(timer);
        resolveStart({ url, stop });
      }
    });
  });
}

beforeAll(async () => {
  service = await startFakePushService();
  work = await mkdtemp(join(tmpdir(), 'pk-package-'));
  project = join(work, 'my-project');
  await mkdir(project);
  // prepack runs `npm run build`: the tarball holds what the build wrote
  await run('npm', ['pack', '--pack-destination', work], { cwd: REPOSITORY, timeout: 150_000 });
  tarball = join(work, `push-kit-${version}.tgz`);
  await writeFile(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'my-project', private: true, type: 'module', dependencies: { 'push-kit': `file:${tarball}` } }, null, 2)}\n`,
  );
  await writeFile(join(project, 'package-lock.json'), await consumerLockfile(join(REPOSITORY, 'package-lock.json'), tarball, 'my-project'));
  const installed = await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: project, timeout: 120_000 });
  installOutput.push(installed.stdout, installed.stderr);
}, 300_000);

afterAll(async () => {
  await service?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed push-kit, installed in a fresh project', () => {
  it('holds only what runs, the schema, the README and the licence, and installs without engine warnings', async () => {
    const { stdout } = await run('tar', ['tzf', tarball]);
    const top = new Set(
      stdout
        .split('\n')
        .filter(Boolean)
        .map((path) => path.replace(/^package\//, '').split('/')[0]),
    );
    expect([...top].sort()).toEqual(['LICENSE', 'README.md', 'bin', 'dist-pkg', 'package.json', 'schema']);
    expect(stdout).toContain('package/dist-pkg/dashboard/dist/index.html');
    expect(installOutput.join('\n')).not.toContain('EBADENGINE');
    for (const devOnly of ['tsx', 'typescript', 'vite']) expect(existsSync(join(project, 'node_modules', devOnly)), devOnly).toBe(false);
  });

  it('runs init --yes, build --json, serve and send from the installed bin', async () => {
    // Startup figures are printed for the record (issue 16's goals: --help under 300 ms, one site's build under
    // 1 s), not asserted: a timed assertion flakes whenever the machine is busy. The fastest of a few runs.
    const helps = [await pushKit(['--help']), await pushKit(['--help']), await pushKit(['--help'])];
    expect(helps[0]!.code).toBe(0);
    expect(helps[0]!.stdout).toContain('Usage: push-kit');
    const helpMs = Math.min(...helps.map((help) => help.ms));
    console.log(`push-kit --help from the installed package: ${Math.round(helpMs)} ms`);

    const init = await pushKit(['init', '--yes']);
    expect(init.code, init.stderr).toBe(0);
    const ownerKey = /^ {2}(pk_[A-Za-z0-9_-]{32})$/m.exec(init.stdout)![1]!;
    const configFile = join(project, 'site-configs', 'my-site.json');
    const config = JSON.parse(await readFile(configFile, 'utf8')) as { $schema: string; hash: string };
    expect(config.$schema).toBe('../node_modules/push-kit/schema/site-config.schema.json');
    expect(existsSync(resolve(dirname(configFile), config.$schema))).toBe(true);

    const builds = [
      await pushKit(['build', 'site-configs/my-site.json', '--json']),
      await pushKit(['build', 'site-configs/my-site.json', '--json']),
    ];
    const build = builds[0]!;
    expect(build.code, build.stderr).toBe(0);
    const buildMs = Math.min(...builds.map((run) => run.ms));
    console.log(`push-kit build of one site from the installed package: ${Math.round(buildMs)} ms`);
    expect(JSON.parse(build.stdout)).toMatchObject({ ok: true, built: 1, sites: [{ name: 'my-site', ok: true, errors: [] }] });
    expect(existsSync(join(project, 'dist', 'my-site', 'push.js'))).toBe(true);

    const provider = await startServe();
    const subscriber = createSubscriberKeys();
    try {
      const page = await fetch(`${provider.url}/dashboard/`);
      expect(page.status).toBe(200);
      const html = await page.text();
      const files = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((match) => match[1]!);
      expect(files.some((file) => file.endsWith('.js'))).toBe(true);
      for (const file of files) expect((await fetch(`${provider.url}${file}`)).status, file).toBe(200);

      const sync = await fetch(`${provider.url}/syncSubscriptionAction.php`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          hash: config.hash,
          action: 'insert',
          subscription: JSON.stringify({
            endpoint: `${service.origin}/push/installed`,
            keys: { p256dh: subscriber.p256dh, auth: subscriber.auth },
          }),
        }),
      });
      expect(await sync.json()).toEqual({ status: 'success', subscriberId: expect.any(String), subscriberSecret: expect.any(String) });
      const count = await fetch(`${provider.url}/api/v1/sites/my-site/subscribers/count`, {
        headers: { authorization: `Bearer ${ownerKey}` },
      });
      expect(await count.json()).toMatchObject({ status: 'success', count: 1, byStatus: { subscribed: 1 } });
    } finally {
      await provider.stop();
    }

    const send = await pushKit(['send', '--site', 'my-site', '--title', 'Installed', '--body', 'from the tarball']);
    expect(send.stderr).toBe('');
    expect(send.stdout).toContain('sent to 1: 1 delivered, 0 expired, 0 failed');
    expect(send.code).toBe(0);
    const request = service.requests.find((entry) => entry.path === '/push/installed')!;
    expect(JSON.parse(decryptPushBody(request.body, subscriber).toString('utf8'))).toMatchObject({
      web_push: 8030,
      notification: { title: 'Installed', body: 'from the tarball' },
    });
  }, 120_000);

  it("runs push-kit dev with the project's config: a local page with the snippet and the provider", async () => {
    const dev = await startDev([bin(), 'dev', 'site-configs/my-site.json', '--port', '0', '--site-port', '0'], project, env());
    try {
      const page = await fetch(`${dev.site}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script async src="/push.js"></script>');
      const pushJs = await (await fetch(`${dev.site}/push.js`)).text();
      expect(pushJs).toContain(dev.provider);
      expect(await (await fetch(`${dev.provider}/health`)).json()).toEqual({ status: 'success', database: 'embedded', sites: 1 });
    } finally {
      expect(await dev.stop(), dev.output()).toBe(0);
    }
  }, 90_000);

  it('exports a typed API and the JSON Schema', async () => {
    await writeFile(
      join(project, 'use-api.ts'),
      [
        "import { buildSite, loadConfig, sendCampaign, startProvider, type Provider, type SiteBuildResult } from 'push-kit';",
        "import schema from 'push-kit/schema/site-config.schema.json' with { type: 'json' };",
        "const loaded = await loadConfig('site-configs/my-site.json');",
        'if (loaded.ok) console.log(loaded.config.hash.length, schema.title);',
        "const result: SiteBuildResult = await buildSite('site-configs/my-site.json', 'dist');",
        'if (result.ok) console.log(result.files.length);',
        '// @ts-expect-error the title is required',
        "await sendCampaign({ site: 'my-site', body: 'b' });",
        "const provider: Provider = await startProvider({ configs: ['site-configs/my-site.json'], port: 0 });",
        'await provider.close();',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          resolveJsonModule: true,
          types: ['node'],
          typeRoots: [join(REPOSITORY, 'node_modules', '@types')],
        },
        files: ['use-api.ts'],
      }),
    );
    const tsc = join(REPOSITORY, 'node_modules', 'typescript', 'bin', 'tsc');
    await expect(run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project })).resolves.toBeDefined();

    const api = await run(
      process.execPath,
      ['--input-type=module', '-e', "const api = await import('push-kit'); console.log(Object.keys(api).sort().join(' '))"],
      { cwd: project },
    );
    expect(api.stdout.trim().split(' ')).toEqual(expect.arrayContaining(['buildSite', 'loadConfig', 'sendCampaign', 'startProvider']));

    // the provider from code: the project's config, the embedded database, a free port
    const started = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        [
          "const { startProvider } = await import('push-kit');",
          "const provider = await startProvider({ configs: ['site-configs/my-site.json'], port: 0 });",
          'const health = await (await fetch(`${provider.url}/health`)).json();',
          'await provider.close();',
          'console.log(JSON.stringify({ url: provider.url, health }));',
        ].join('\n'),
      ],
      { cwd: project, env: env() },
    );
    expect(JSON.parse(started.stdout)).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      health: { status: 'success', database: 'embedded', sites: 1 },
    });
  }, 60_000);

  it('runs the commands of docs/deploy/Dockerfile: the image builds every site and serves them on PostgreSQL', async () => {
    const dockerfile = await readFile(join(REPOSITORY, 'docs', 'deploy', 'Dockerfile'), 'utf8');
    const image = join(work, 'image');
    await mkdir(image);
    let database: ThrowawayDatabase | undefined;
    const serverUrl = process.env.PUSHKIT_TEST_DATABASE_URL;
    if (serverUrl) database = await createThrowawayDatabase(serverUrl, 'pushkit_image');
    // as compose.yaml runs the image: DATABASE_URL names PostgreSQL (the embedded database when the test has none)
    const imageEnv = { ...env(), NODE_ENV: 'production', DATABASE_URL: database?.url ?? '', npm_config_offline: 'true' };
    let command: string[] = [];
    try {
      for (const line of dockerfile.split('\n')) {
        const [instruction, ...rest] = line.trim().split(/\s+/);
        const argument = line.trim().slice(instruction!.length).trim();
        if (instruction === 'COPY') {
          for (const source of rest.slice(0, -1)) await cp(join(project, source), join(image, source), { recursive: true });
        } else if (instruction === 'RUN') {
          await run('sh', ['-c', argument], { cwd: image, env: imageEnv, timeout: 120_000 });
        } else if (instruction === 'CMD') {
          command = JSON.parse(argument) as string[];
        }
      }
      expect(existsSync(join(image, 'dist', 'my-site', 'push.js'))).toBe(true);
      expect(command.slice(0, 2)).toEqual(['node_modules/.bin/push-kit', 'serve']);
      // the image listens on 8787; here any free port
      const port = command.indexOf('--port') + 1;
      command[port] = '0';
      command[0] = join(image, command[0]!);
      const provider = await startServe(command, image, imageEnv);
      try {
        const health = await (await fetch(`${provider.url}/health`)).json();
        expect(health).toEqual({ status: 'success', database: database ? 'postgres' : 'embedded', sites: 1 });
      } finally {
        await provider.stop();
      }
    } finally {
      await database?.drop();
    }
  }, 180_000);
});
