// Shared by the worker*.test.ts files: a site built by the real build and served from loopback with a blank
// page, push-kit's workers and a site's own worker (a fetch handler that imports push-kit-sw.js); pushes
// delivered to a registration through CDP (docs/testing.md); the notifications a registration shows, read back.
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { buildSite } from '../../emit/build-site.ts';
import { closeServer } from './close-server.ts';
import { retryOnPortInUse } from './port-retry.ts';
import { freePort } from './ports.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The site's own worker: it answers /own/hello itself and pulls in push-kit's handlers. */
export const OWN_WORKER = `importScripts('/push-kit-sw.js');
self.addEventListener('fetch', (event) => {
  if (new URL(event.request.url).pathname === '/own/hello') event.respondWith(new Response("answered by the site's own worker"));
});
`;

export interface WorkerSite {
  origin: string;
  config: Record<string, unknown> & { hash: string; companyName: string };
  configFile: string;
  builtDir: string;
  /** Appended to sw.js as a comment, so a test can publish a new version of it. */
  swVersion: number;
  close(): Promise<void>;
}

/** Builds calligraphy.json for `origin` (with overrides) and serves it; the provider URL may be a dead port. */
export function startWorkerSite(options: WorkerSiteOptions = {}): Promise<WorkerSite> {
  return retryOnPortInUse(() => startWorkerSiteOnce(options));
}

interface WorkerSiteOptions {
  overrides?: Record<string, unknown> | ((port: number) => Record<string, unknown>);
  serverSyncUrl?: string;
}

async function startWorkerSiteOnce(options: WorkerSiteOptions): Promise<WorkerSite> {
  const work = await mkdtemp(join(tmpdir(), 'push-kit-worker-'));
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const original = JSON.parse(await readFile(join(REPO, 'site-configs/calligraphy.json'), 'utf8')) as Record<string, unknown>;
  const config = {
    ...original,
    $schema: join(REPO, 'schema/site-config.schema.json'),
    origin,
    serverSyncUrl: options.serverSyncUrl ?? `http://127.0.0.1:${await freePort()}`,
    style: { ...(original.style as object), iconUrl: `${origin}/icon.png` },
    ...(typeof options.overrides === 'function' ? options.overrides(port) : options.overrides),
  } as unknown as WorkerSite['config'];
  const configFile = join(work, 'calligraphy.json');
  await writeFile(configFile, JSON.stringify(config));
  const built = await buildSite(configFile, join(work, 'dist'));
  if (!built.ok) throw new Error(`build failed: ${built.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}`);
  const icon = await readFile(join(REPO, 'examples/calligraphy-site/icon.png'));

  const site: WorkerSite = { origin, config, configFile, builtDir: built.dir, swVersion: 0, close: async () => {} };
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', origin).pathname;
    const send = (status: number, type: string, body: string | Buffer) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    const script = (body: string) => send(200, 'text/javascript; charset=utf-8', body);
    if (path === '/own-sw.js') return script(OWN_WORKER);
    if (path === '/sw.js' || path === '/push-kit-sw.js' || path === '/sw-firefox.js') {
      readFile(join(built.dir, path.slice(1)), 'utf8').then(
        (code) => script(path === '/sw.js' && site.swVersion ? `${code}\n// version ${site.swVersion}\n` : code),
        () => send(500, 'text/plain', 'unreadable bundle file'),
      );
      return;
    }
    if (path === '/icon.png') return send(200, 'image/png', icon);
    if (path === '/own/hello') return send(404, 'text/plain', 'answered by the network');
    if (path === '/favicon.ico') return send(404, 'text/plain', '');
    return send(200, 'text/html; charset=utf-8', `<!doctype html><title>${path}</title><h1>${path}</h1>`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  }).catch(async (error: unknown) => {
    await rm(work, { recursive: true, force: true });
    throw error;
  });
  site.close = async () => {
    await closeServer(server);
    await rm(work, { recursive: true, force: true });
  };
  return site;
}

/** Registers `script` at `scope` from the page and waits until the registration has an active worker. */
export async function registerWorker(page: Page, script: string, scope: string): Promise<void> {
  await page.evaluate(
    async ({ script, scope }) => {
      const registration = await navigator.serviceWorker.register(script, { scope });
      const worker = registration.installing ?? registration.waiting;
      if (registration.active || !worker) return;
      await new Promise<void>((resolve) => {
        const check = () => worker.state === 'activated' && resolve();
        worker.addEventListener('statechange', check);
        check();
      });
    },
    { script, scope },
  );
}

/** The newest notification time (ms) of the registration of `scopeURL`, 0 when it shows none. */
function newestNotification(page: Page, scopeURL: string): Promise<number> {
  return page.evaluate(async (scopeURL) => {
    const registration = await navigator.serviceWorker.getRegistration(scopeURL);
    return Math.max(
      0,
      ...((await registration?.getNotifications()) ?? []).map(
        (notification) => (notification as Notification & { timestamp: number }).timestamp,
      ),
    );
  }, scopeURL);
}

/**
 * Delivers a push message to the registration of `scopeURL` through CDP (a trusted push event), and waits until
 * it shows (every push shows a notification). Measured here: the first CDP delivery to
 * a fresh profile's worker is sometimes never dispatched (the worker's push listener does not run, a second
 * delivery shows at once), so a delivery that shows nothing within 3 s is made again, at most three times.
 */
export async function deliverPush(
  context: BrowserContext,
  page: Page,
  origin: string,
  scopeURL: string,
  data: string,
  /** Whether the push showed; by default a notification newer than the delivery (a D-Bus desktop lists none). */
  shown?: () => boolean | Promise<boolean>,
): Promise<void> {
  const cdp = await context.newCDPSession(page);
  try {
    const registrationId = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no service worker registration for ${scopeURL}`)), 10_000);
      cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
        const found = registrations.find((registration) => registration.scopeURL === scopeURL && !registration.isDeleted);
        if (found) {
          clearTimeout(timer);
          resolve(found.registrationId);
        }
      });
    });
    await cdp.send('ServiceWorker.enable');
    const id = await registrationId;
    for (let attempt = 1; ; attempt += 1) {
      const before = await page.evaluate(() => Date.now());
      await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: id, data });
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline) {
        if (shown ? await shown() : (await newestNotification(page, scopeURL)) >= before) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (attempt === 3) return; // the test's own wait reports what is missing
    }
  } finally {
    await cdp.detach().catch(() => {});
  }
}

export interface ShownNotification {
  title: string;
  body: string;
  icon: string;
  image: string;
  badge: string;
  tag: string;
  requireInteraction: boolean;
  actions: { action: string; title: string }[];
  data: unknown;
}

/** The notifications the registration controlling `clientUrl` currently shows. */
export function shownNotifications(page: Page, clientUrl: string): Promise<ShownNotification[]> {
  return page.evaluate(async (clientUrl) => {
    const registration = await navigator.serviceWorker.getRegistration(clientUrl);
    if (!registration) throw new Error(`no registration for ${clientUrl}`);
    return (await registration.getNotifications()).map((notification) => ({
      title: notification.title,
      body: notification.body,
      icon: notification.icon,
      image: (notification as Notification & { image: string }).image,
      badge: (notification as Notification & { badge: string }).badge,
      tag: notification.tag,
      requireInteraction: notification.requireInteraction,
      actions: ((notification as Notification & { actions?: { action: string; title: string }[] }).actions ?? []).map(
        ({ action, title }) => ({ action, title }),
      ),
      data: notification.data as unknown,
    }));
  }, clientUrl);
}

/** Closes every notification of the registration controlling `clientUrl`. */
export function closeNotifications(page: Page, clientUrl: string): Promise<void> {
  return page.evaluate(async (clientUrl) => {
    const registration = await navigator.serviceWorker.getRegistration(clientUrl);
    for (const notification of (await registration?.getNotifications()) ?? []) notification.close();
  }, clientUrl);
}
