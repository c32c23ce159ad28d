// Files the provider serves for the sites: the child window page (built by `push-kit build`), the push
// workers beside it (the child window subscribes on its own origin, so its worker must live there, scoped to
// /sites/<hash>/), its stylesheet at the path spec section 2 names, and a health check.
// A site with a `childWindowOrigin` has its child window and workers on that host name only, and no other
// site's are served there: permission, storage and cookies of one origin then belong to one site alone.
import { ServerError } from '../errors.ts';
import { readFile } from 'node:fs/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { siteHash } from '../http/params.ts';
import { successReply, type ZodTypeProvider } from '../http/route-schemas.ts';

import { readBuiltFile, type HostedSite } from '../sites.ts';
import type { SiteRegistry } from '../http/site-access.ts';
import type { RouteContext } from '../http/route-context.ts';

const TEMPLATE_STYLESHEET = new URL('../../templates/pc-iframe.css', import.meta.url);
const STYLESHEET_PATH = 'http-v4/css/pc-iframe.css';

const pageParams = z.object({ hash: siteHash });
const workerParams = z.object({ hash: siteHash, worker: z.enum(['sw.js', 'sw-firefox.js']) });
// The child window is opened as a popup, never framed: a page framing it could overlay its consent flow.
const NO_FRAMING = { 'content-security-policy': "frame-ancestors 'none'", 'x-frame-options': 'DENY' };
const HEALTH_REPLY = successReply({ database: z.enum(['embedded', 'postgres']), sites: z.int() });

/** Where a site's child window lives: its own origin, or (none configured) any host that is no site's own. */
function requireChildWindowHost(request: FastifyRequest, registry: SiteRegistry, site: HostedSite): void {
  const owner = registry.childWindowSiteOf(request);
  if (owner === site || (!owner && !site.config.childWindowOrigin)) return;
  throw new ServerError('E_CHILD_WINDOW_HOST', {
    site: site.name,
    host: request.host,
    childWindowOrigin: site.config.childWindowOrigin ?? site.config.serverSyncUrl,
  });
}

// The pages, workers and stylesheet are files: their routes declare what they take, their replies are bytes.
export async function siteFileRoutes(fastify: FastifyInstance, { db, registry }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/sites/:hash/child-window.html', { schema: { params: pageParams } }, async (request, reply) => {
    const params = request.params;
    const site = registry.require(params.hash, 'hash');
    const { childWindowOrigin } = site.config;
    // A bundle built before the site had an origin of its own still opens the shared URL: send it over.
    if (childWindowOrigin && !registry.childWindowSiteOf(request)) {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      return reply.redirect(`${childWindowOrigin}/sites/${encodeURIComponent(site.hash)}/child-window.html${query}`, 302);
    }
    requireChildWindowHost(request, registry, site);
    const page = await readBuiltFile(site, 'child-window.html');
    if (!page) throw new ServerError('E_SITE_NOT_BUILT', { site: site.name, file: 'child window', config: site.file });
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').headers(NO_FRAMING).send(page);
  });

  // Chromium and Firefox workers; the scope is the folder of the script, so no Service-Worker-Allowed header.
  app.get('/sites/:hash/:worker', { schema: { params: workerParams } }, async (request, reply) => {
    const params = request.params;
    const site = registry.require(params.hash, 'hash');
    requireChildWindowHost(request, registry, site);
    const code = await readBuiltFile(site, params.worker);
    if (!code) throw new ServerError('E_SITE_NOT_BUILT', { site: site.name, file: params.worker, config: site.file });
    return reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(code);
  });

  app.get(`/${STYLESHEET_PATH}`, async (_request, reply) => {
    for (const site of registry.sites) {
      const built = await readBuiltFile(site, STYLESHEET_PATH);
      if (built) return reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(built);
    }
    const template = await readFile(TEMPLATE_STYLESHEET).catch(() => null);
    if (!template) throw new ServerError('E_STYLESHEET_NOT_BUILT');
    return reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(template);
  });

  app.get('/health', { schema: { response: { 200: HEALTH_REPLY } } }, async (_request, reply) => {
    await db.query('SELECT 1');
    return reply.send({ status: 'success', database: db.kind, sites: registry.sites.length });
  });
}
