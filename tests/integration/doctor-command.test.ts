// `push-kit doctor` through the real bin, as an owner or CI runs it in the provider's folder: a site built by
// `push-kit build` and served by a static server, hosted by the real provider (provider-harness.ts), passes every
// check and exits 0; then each thing a deployment gets wrong, one at a time: a config that differs from the good
// one in one field (a worker path the static server answers wrongly, a provider without CORS, another key, a
// subject Apple refuses) fails exactly the check it breaks, with its message and fix. The broken configs are
// checked by one doctor run (each site's findings are its own; a process per case would cost a second each),
// the cases that need the exit code or the state folder to themselves by runs of their own.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { freePort } from '../support/ports.ts';
import { testSite } from '../support/server.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const HASH = 'shop-site-0001';
const vapid = generateVapidKeyPair();

let project: string;
let site: string;
let fakeProvider: string;
let harness: ProviderHarness;
const servers: Server[] = [];
let secondSite: string;
let workboxSite: string;
/** An origin nothing listens on. */
let closedOrigin: string;
let baseConfig: Record<string, unknown>;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.html': 'text/html; charset=utf-8',
};

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

const WORKBOX =
  "importScripts('https://storage.googleapis.com/workbox-cdn/releases/7.0.0/workbox-sw.js');\nworkbox.precaching.precacheAndRoute(self.__WB_MANIFEST);\n";

/** The worker paths the broken configs point at, each answered wrongly in one way. */
async function workerVariant(path: string, response: ServerResponse): Promise<boolean> {
  const worker = () => readFile(join(project, 'dist/shop/sw.js'));
  const js = { 'content-type': TYPES['.js']! };
  if (path === '/text-html/sw.js') response.writeHead(200, { 'content-type': TYPES['.html'] }).end(await worker());
  else if (path === '/workbox/sw.js') response.writeHead(200, { 'content-type': 'application/javascript' }).end(WORKBOX);
  else if (path === '/combined/sw.js') response.writeHead(200, js).end(`importScripts('/push-kit-sw.js');\n${WORKBOX}`);
  else if (path === '/push/sw.js') response.writeHead(200, js).end(await worker());
  else if (path === '/allowed/sw.js') response.writeHead(200, { ...js, 'service-worker-allowed': '/' }).end(await worker());
  else return false;
  return true;
}

/** The site's web server: the build of `shop`, a home page with its snippet; or with push.js answering 404, or
 * with Workbox's worker at /sw.js (docs/ci.md's example). */
async function serveSite(request: IncomingMessage, response: ServerResponse, variant?: 'no-push-js' | 'workbox'): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  if (await workerVariant(variant === 'workbox' && path === '/sw.js' ? '/workbox/sw.js' : path, response)) return;
  if (variant === 'no-push-js' && path === '/push.js') return void response.writeHead(404).end();
  const built = join(project, 'dist/shop');
  if (path === '/') {
    const snippet = await readFile(join(built, 'snippet.html'), 'utf8');
    response.writeHead(200, { 'content-type': TYPES['.html'] }).end(`<!doctype html><html><head>${snippet}</head><body>Shop</body></html>`);
    return;
  }
  const body = await readFile(join(built, path.slice(1))).catch(() => undefined);
  if (!body || path.includes('..')) return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
}

/** A provider that answers /health but gets one thing wrong by its base path: `/no-cors/`, `/skewed/`. */
function serveFakeProvider(request: IncomingMessage, response: ServerResponse): void {
  const [, mode] = (request.url ?? '/').split('/');
  if (mode === 'skewed') response.setHeader('date', new Date(Date.now() + 10 * 60 * 1000).toUTCString());
  if (request.method === 'OPTIONS') {
    if (mode !== 'no-cors') response.setHeader('access-control-allow-origin', String(request.headers.origin));
    return void response.writeHead(204).end();
  }
  response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"success"}');
}

/** `site-configs/<name>.json`: the shop's config with these fields changed (undefined: removed), and its key file. */
async function writeConfig(name: string, fields: Record<string, unknown> = {}, folder = 'site-configs'): Promise<string> {
  const config: Record<string, unknown> = { ...baseConfig, ...fields };
  for (const [key, value] of Object.entries(fields)) if (value === undefined) delete config[key];
  const file = `${folder}/${name}.json`;
  await mkdir(join(project, folder), { recursive: true });
  await writeFile(join(project, file), JSON.stringify(config, null, 2));
  await writeVapidKeyFile(join(project, '.push-kit/keys', `${name}.json`), vapid);
  return file;
}

async function pushKit(args: string[], cwd = project): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [join(root, 'bin/push-kit.js'), ...args], { cwd, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

interface Check {
  id: string;
  site: string;
  status: 'pass' | 'warn' | 'fail';
  message: string;
  fix: string | null;
}

interface Doctored {
  code: number;
  checks: Check[];
  notPassed: Check[];
}

/** `doctor --json` of configs: the exit code, every check, and the checks that did not pass. */
async function doctor(files: string[], flags: string[] = [], cwd = project): Promise<Doctored> {
  const result = await pushKit(['doctor', ...files, '--json', '--timeout-ms', '5000', ...flags], cwd);
  const { checks } = JSON.parse(result.stdout) as { checks: Check[] };
  return { code: result.code, checks, notPassed: checks.filter((check) => check.status !== 'pass') };
}

/** Every broken config (by name: the fields that differ from the good one), checked by one doctor run. */
const BROKEN: Record<string, () => Record<string, unknown>> = {
  'text-html': () => ({ swPath: '/text-html/sw.js', swScope: '/text-html/' }),
  'no-push-js': () => ({ origin: secondSite }),
  scoped: () => ({ swPath: '/push/sw.js', swScope: '/' }),
  allowed: () => ({ swPath: '/allowed/sw.js', swScope: '/' }),
  workbox: () => ({ swPath: '/workbox/sw.js', swScope: '/workbox/' }),
  combined: () => ({ swPath: '/combined/sw.js', swScope: '/combined/' }),
  'no-cors': () => ({ serverSyncUrl: `${fakeProvider}/no-cors` }),
  mixed: () => ({ origin: 'https://shop.example', serverSyncUrl: 'http://push.shop.example' }),
  'other-key': () => ({ vapidPublicKey: generateVapidKeyPair().publicKey }),
  'localhost-subject': () => ({ vapidSubject: 'mailto:push@localhost' }),
  'derived-subject': () => ({ vapidSubject: undefined }),
  unreachable: () => ({ origin: closedOrigin }),
  'config-warning': () => ({ clickSegmentations: 'not json' }),
};
let brokenRun: Promise<Doctored> | undefined;

/** The findings of one broken config (or of docs/ci.md's example, `shop`), from the shared run (exit 1). */
async function broken(name: keyof typeof BROKEN | 'shop'): Promise<{ checks: Check[]; notPassed: Check[] }> {
  brokenRun ??= (async () => {
    const files = await Promise.all(Object.entries(BROKEN).map(([config, fields]) => writeConfig(config, fields())));
    // docs/ci.md's example: a shop with Workbox's worker at /sw.js and a provider clock 10 minutes ahead
    files.push(await writeConfig('shop', { origin: workboxSite, serverSyncUrl: `${fakeProvider}/skewed` }, 'docs-example'));
    return doctor(files);
  })();
  const { code, checks } = await brokenRun;
  expect(code).toBe(1);
  const own = checks.filter((check) => check.site === name);
  return { checks: own, notPassed: own.filter((check) => check.status !== 'pass') };
}

const ids = (checks: Check[]) => checks.map((check) => check.id);

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'pk-doctor-'));
  await mkdir(join(project, 'site-configs'));
  await mkdir(join(project, '.push-kit'), { mode: 0o700 });
  site = await listen((request, response) => void serveSite(request, response));
  secondSite = await listen((request, response) => void serveSite(request, response, 'no-push-js'));
  workboxSite = await listen((request, response) => void serveSite(request, response, 'workbox'));
  fakeProvider = await listen(serveFakeProvider);
  closedOrigin = `http://127.0.0.1:${await freePort()}`;
  harness = await startProviderHarness({
    sites: [
      testSite({ name: 'shop', hash: HASH, origin: site }),
      testSite({ name: 'second', hash: 'second-site-01', origin: secondSite }),
      testSite({ name: 'third', hash: 'third-site-001', origin: workboxSite }),
    ],
    vapid,
    service: false,
  });
  baseConfig = {
    hash: HASH,
    companyName: 'Shop',
    origin: site,
    serverSyncUrl: harness.provider!.url,
    vapidPublicKey: vapid.publicKey,
    vapidSubject: 'mailto:push@shop-example.com',
  };
  const file = await writeConfig('shop');
  const built = await pushKit(['build', file, '--out', 'dist']);
  expect(built.code, built.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  await rm(project, { recursive: true, force: true });
});

describe('push-kit doctor', () => {
  it('passes every check of a built site served as built, with the real provider, and exits 0', async () => {
    const { code, checks, notPassed } = await doctor(['site-configs/shop.json']);
    expect(notPassed).toEqual([]);
    expect(code).toBe(0);
    expect(ids(checks)).toEqual([
      'config',
      'page-snippet',
      'push-js',
      'manifest',
      'service-worker',
      'service-worker-scope',
      'service-worker-owner',
      'provider-https',
      'provider',
      'provider-cors',
      'clock',
      'vapid-key-file',
      'vapid-key',
      'vapid-subject',
      'vapid-token',
      'state-private',
    ]);
    expect(checks.every((check) => check.site === 'shop' && check.fix === null)).toBe(true);
    expect(checks.find((check) => check.id === 'push-js')!.message).toBe(`${site}/push.js is push.js: the same as dist/shop/push.js`);
    expect(checks.find((check) => check.id === 'service-worker-owner')!.message).toBe(
      `${site}/sw.js is push-kit's worker: the same as dist/shop/sw.js`,
    );
  }, 30_000);

  it('fails sw.js served with a type that is not JavaScript', async () => {
    const { notPassed } = await broken('text-html');
    expect(ids(notPassed)).toEqual(['service-worker']);
    expect(notPassed[0]!.message).toBe(
      `${site}/text-html/sw.js is served as text/html: browsers register a service worker only from a JavaScript type (text/javascript)`,
    );
    expect(notPassed[0]!.fix).toContain('serve .js files as text/javascript');
  }, 30_000);

  it('fails a push.js that answers 404', async () => {
    const { notPassed } = await broken('no-push-js');
    expect(ids(notPassed)).toEqual(['push-js']);
    expect(notPassed[0]!.message).toBe(`${secondSite}/push.js answers HTTP 404`);
  }, 30_000);

  it('fails a worker under a sub-path registered for a wider scope without Service-Worker-Allowed; passes with it', async () => {
    const { notPassed } = await broken('scoped');
    expect(ids(notPassed)).toEqual(['service-worker-scope']);
    expect(notPassed[0]!.message).toBe(
      `swScope / is wider than the folder of ${site}/push/sw.js (/push/) and the answer has no Service-Worker-Allowed header: registering it fails`,
    );
    expect(notPassed[0]!.fix).toBe('send "Service-Worker-Allowed: /" with /push/sw.js, or set swScope to /push/ (or below)');
    const allowed = await broken('allowed');
    expect(allowed.notPassed).toEqual([]);
    expect(allowed.checks.find((check) => check.id === 'service-worker-scope')!.message).toBe(
      'scope / is allowed: Service-Worker-Allowed: /',
    );
  }, 30_000);

  it('names a Workbox worker at the scope with the one-line fix, and passes it once it imports push-kit-sw.js', async () => {
    const { notPassed } = await broken('workbox');
    expect(ids(notPassed)).toEqual(['service-worker-owner']);
    expect(notPassed[0]!.message).toBe(
      `${site}/workbox/sw.js is Workbox's worker and does not import push-kit-sw.js: a scope has one worker, so push-kit's push handlers never run`,
    );
    expect(notPassed[0]!.fix).toBe(
      "add importScripts('/push-kit-sw.js'); at the top of /workbox/sw.js and serve the build's push-kit-sw.js at /push-kit-sw.js (docs/service-workers.md, set-up 2)",
    );
    // the combined worker of docs/service-workers.md
    const combined = await broken('combined');
    expect(combined.notPassed).toEqual([]);
    expect(combined.checks.find((check) => check.id === 'service-worker-owner')!.message).toBe(
      `${site}/combined/sw.js is push-kit's worker: imports /push-kit-sw.js beside Workbox`,
    );
  }, 30_000);

  it('fails a provider that answers the preflight without CORS for the site', async () => {
    const { notPassed } = await broken('no-cors');
    expect(ids(notPassed)).toEqual(['provider-cors']);
    expect(notPassed[0]!.message).toBe(
      `the CORS preflight to ${fakeProvider}/no-cors/syncSubscriptionAction.php from ${site} answers HTTP 204 with no Access-Control-Allow-Origin: browsers refuse the site's subscription sync`,
    );
  }, 30_000);

  it('fails an https site whose provider is plain http (mixed content)', async () => {
    const { notPassed } = await broken('mixed');
    expect(ids(notPassed)).toEqual(['provider-https']);
    expect(notPassed[0]!.message).toContain('serverSyncUrl: must be an https URL');
    expect(notPassed[0]!.fix).toContain('serve the provider over https');
  }, 30_000);

  it("fails a key file that is not the config's key", async () => {
    const { notPassed } = await broken('other-key');
    expect(ids(notPassed)).toEqual(['vapid-key']);
    expect(notPassed[0]!.message).toBe(
      ".push-kit/keys/other-key.json is not the key pair of site-configs/other-key.json's vapidPublicKey: push services refuse the pushes it signs",
    );
  }, 30_000);

  it('fails a VAPID subject Apple refuses: set to a localhost address, or derived from a local origin', async () => {
    const set = await broken('localhost-subject');
    expect(ids(set.notPassed)).toEqual(['vapid-subject']);
    expect(set.notPassed[0]!.message).toContain('BadJwtToken');
    const derived = await broken('derived-subject');
    expect(ids(derived.notPassed)).toEqual(['vapid-subject']);
    expect(derived.notPassed[0]!.message).toContain('VAPID subject mailto:webpush@127.0.0.1 (derived from the origin');
    expect(derived.notPassed[0]!.fix).toContain('set vapidSubject to a mailto: address');
  }, 30_000);

  it('warns of what validate warns of in the config', async () => {
    const { notPassed } = await broken('config-warning');
    expect(notPassed.map((check) => [check.id, check.status])).toEqual([['config', 'warn']]);
    expect(notPassed[0]!.message).toMatch(/^site-configs\/config-warning\.json: clickSegmentations: /);
  }, 30_000);

  it('names the URL and the cause of a site that cannot be reached', async () => {
    const { notPassed } = await broken('unreachable');
    const refused = (path: string) =>
      `cannot load ${closedOrigin}${path}: connection refused (ECONNREFUSED): nothing listens on ${closedOrigin.slice('http://'.length)}; is the site's web server running?`;
    expect(notPassed.filter((check) => check.id !== 'provider-cors').map((check) => [check.id, check.message])).toEqual([
      ['page-snippet', refused('/')],
      ['push-js', refused('/push.js')],
      ['manifest', refused('/manifest.json')],
      ['service-worker', refused('/sw.js')],
    ]);
  }, 30_000);

  it('warns of a provider clock 10 minutes off (exit 0), which --strict fails', async () => {
    const file = await writeConfig('skewed', { serverSyncUrl: `${fakeProvider}/skewed` });
    const [plain, strict] = await Promise.all([doctor([file]), doctor([file], ['--strict'])]);
    expect(ids(plain.notPassed)).toEqual(['clock']);
    expect(plain.notPassed[0]!.status).toBe('warn');
    expect(plain.notPassed[0]!.message).toMatch(/ s ahead of this machine \(more than 5 minutes\)$/);
    expect(plain.code).toBe(0);
    expect(strict.code).toBe(1);
  }, 30_000);

  it('fails a key file other users can read (0644), as the state folder check does, and exits 1', async () => {
    // a provider folder of its own: an open key file fails every site's state folder check
    const provider = await mkdtemp(join(tmpdir(), 'pk-doctor-open-'));
    try {
      await mkdir(join(provider, '.push-kit'), { mode: 0o700 });
      const key = join(provider, '.push-kit/keys/shop.json');
      await writeVapidKeyFile(key, vapid);
      await chmod(key, 0o644);
      const args = [join(project, 'site-configs/shop.json'), '--dist', join(project, 'dist')];
      const [{ code, notPassed }, text] = await Promise.all([doctor(args, [], provider), pushKit(['doctor', ...args], provider)]);
      expect(ids(notPassed)).toEqual(['vapid-key-file', 'state-private']);
      expect(notPassed[0]!.message).toBe(
        ".push-kit/keys/shop.json is open to other users of this machine (mode 0644): it holds the site's VAPID private key",
      );
      expect(notPassed.map((check) => check.fix)).toEqual(['chmod 600 .push-kit/keys/shop.json', 'chmod 600 .push-kit/keys/shop.json']);
      expect(code).toBe(1);
      // the report a person reads: the check, its message, the fix beneath
      expect(text.code).toBe(1);
      expect(text.stdout).toContain(
        "  FAIL  vapid-key-file        .push-kit/keys/shop.json is open to other users of this machine (mode 0644): it holds the site's VAPID private key\n" +
          '                              fix: chmod 600 .push-kit/keys/shop.json\n',
      );
      expect(text.stdout).toContain('\ndoctor: 2 failed, 0 warnings, 14 passed\n');
    } finally {
      await rm(provider, { recursive: true, force: true });
    }
  }, 30_000);
});

/** The keys of every object, as one shape; an array is the set of its elements' shapes (as tests/unit/docs.test.ts). */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return [...new Set(value.map((item) => JSON.stringify(shape(item))))].sort();
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shape((value as Record<string, unknown>)[key])]),
    );
  return typeof value;
}

describe('docs/ci.md', () => {
  it('shows doctor --json as it prints: the shape, and each check of the example word for word', async () => {
    const doc = await readFile(join(root, 'docs/ci.md'), 'utf8');
    const section = doc.slice(doc.indexOf('\n## Checking a deployed site'));
    const example = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(section)![1]!) as { checks: Check[] };
    const { checks } = await broken('shop');
    // the example's origins, config path and the clock's seconds stand for this run's
    const real = checks.map(
      (check) =>
        JSON.parse(
          JSON.stringify(check)
            .replaceAll(`${fakeProvider}/skewed`, 'https://push.shop.example')
            .replaceAll(workboxSite, 'https://shop.example')
            .replaceAll('docs-example/shop.json', 'site-configs/shop.json')
            .replace(/\d+ s ahead/, '600 s ahead'),
        ) as Check,
    );
    expect(shape(example)).toEqual(shape({ checks: real }));
    for (const entry of example.checks) expect(real).toContainEqual(entry);
    expect(checks).toHaveLength(16);
  }, 30_000);
});
