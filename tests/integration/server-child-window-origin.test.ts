// Issue 17, item 6: every plain-http site had its child window on the provider's one origin, so permission,
// the stored subscriber id and the opt-out cookie crossed between sites. A site with a `childWindowOrigin` has
// its child window and workers on that host only (routed by Host), nobody else's are served there, and only
// that origin (beside the site's own) may call the site.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { postSync, tempDir, testSite } from '../support/server.ts';

const PROVIDER_HOST = 'push.letters.example';
const A_CHILD_ORIGIN = 'https://a.push.letters.example';
const B_CHILD_ORIGIN = 'https://b.push.letters.example';

let app: FastifyInstance;
let harness: ProviderHarness;
let removeDist: () => Promise<void>;

async function builtSite(root: string, name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'child-window.html'), `<title>${name}</title>`);
  await writeFile(join(dir, 'sw.js'), `// ${name}`);
  return dir;
}

beforeAll(async () => {
  const dist = await tempDir('pushkit-child-origin-');
  removeDist = dist.remove;
  const sites = [
    testSite({
      name: 'a',
      hash: 'site-a-hash',
      origin: 'http://a.example',
      childWindowOrigin: A_CHILD_ORIGIN,
      builtDir: await builtSite(dist.path, 'a'),
    }),
    testSite({
      name: 'b',
      hash: 'site-b-hash',
      origin: 'http://b.example',
      childWindowOrigin: B_CHILD_ORIGIN,
      builtDir: await builtSite(dist.path, 'b'),
    }),
    testSite({ name: 'c', hash: 'site-c-hash', origin: 'http://c.example', builtDir: await builtSite(dist.path, 'c') }),
  ];
  harness = await startProviderHarness({ via: 'createApp', service: false, sites, rateLimit: false });
  app = harness.app;
});
afterAll(async () => {
  await harness?.close();
  await removeDist?.();
});

const get = (host: string, url: string) => app.inject({ url, headers: { host } });

describe('each http site has its child window on its own origin', () => {
  it("serves a site's child window and worker on its own host", async () => {
    const page = await get('a.push.letters.example', '/sites/site-a-hash/child-window.html?action=subscribe');
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe('<title>a</title>');
    expect((await get('a.push.letters.example', '/sites/site-a-hash/sw.js')).statusCode).toBe(200);
  });

  it("refuses a site's child window and worker on another site's host (421 E_CHILD_WINDOW_HOST)", async () => {
    for (const url of ['/sites/site-a-hash/child-window.html?action=unsubscribe&uuid=x', '/sites/site-a-hash/sw.js']) {
      const reply = await get('b.push.letters.example', url);
      expect(reply.statusCode).toBe(421);
      expect(reply.json().code).toBe('E_CHILD_WINDOW_HOST');
    }
    // a site without an origin of its own is not served on one that belongs to a site
    const shared = await get('a.push.letters.example', '/sites/site-c-hash/child-window.html');
    expect(shared.statusCode).toBe(421);
    expect(shared.json().code).toBe('E_CHILD_WINDOW_HOST');
    expect((await get(PROVIDER_HOST, '/sites/site-c-hash/child-window.html')).statusCode).toBe(200);
  });

  it("sends a bundle that still opens the shared URL to the site's own origin, query kept; its worker is refused there", async () => {
    const page = await get(PROVIDER_HOST, '/sites/site-a-hash/child-window.html?action=subscribe&uuid=u-1');
    expect(page.statusCode).toBe(302);
    expect(page.headers.location).toBe(`${A_CHILD_ORIGIN}/sites/site-a-hash/child-window.html?action=subscribe&uuid=u-1`);
    const worker = await get(PROVIDER_HOST, '/sites/site-a-hash/sw.js');
    expect(worker.statusCode).toBe(421);
    expect(worker.json().code).toBe('E_CHILD_WINDOW_HOST');
  });

  it("lets a site's child window origin call that site only, and the shared provider origin no longer", async () => {
    const call = (hash: string, origin: string) =>
      postSync(app, { hash, action: 'get-subscriberid-from-server', uuid: 'visitor-uuid-1' }, { origin, host: PROVIDER_HOST });
    const own = await call('site-a-hash', A_CHILD_ORIGIN);
    expect(own.json().code).not.toBe('E_ORIGIN_FORBIDDEN');
    expect(own.headers['access-control-allow-origin']).toBe(A_CHILD_ORIGIN);
    for (const [hash, origin] of [
      ['site-b-hash', A_CHILD_ORIGIN],
      ['site-c-hash', A_CHILD_ORIGIN],
      ['site-a-hash', `https://${PROVIDER_HOST}`],
    ] as const) {
      const refused = await call(hash, origin);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('E_ORIGIN_FORBIDDEN');
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    }
    // the shared origin still serves the sites that have no origin of their own
    expect((await call('site-c-hash', `https://${PROVIDER_HOST}`)).json().code).not.toBe('E_ORIGIN_FORBIDDEN');
  });
});
