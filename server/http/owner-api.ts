// The owner API under /api/v1/sites: `GET /api/v1/sites` (the sites a key opens, for the dashboard's sign-in and
// site switcher), and every capability's routes under /api/v1/sites/:name/ in one scope whose preHandler
// (ownerSiteHook) finds the member the key is and checks the role each route declares before any of them runs.
import type { Server } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { auditHook, ownerSiteHook } from './owner-auth.ts';
import { siteSummary, sitesOpenedBy } from './owner-sites.ts';
import { SITES_REPLY } from './reply-schemas.ts';
import type { RouteContext } from './route-context.ts';
import type { SitesReply } from '../../contract/owner-api.ts';
import type { Role } from '../../contract/members.ts';

/** An owner route as registered: its method, path and the role it declares (undefined: refused to everyone). */
export interface OwnerRoute {
  method: string;
  url: string;
  role: Role | undefined;
  audit: string | undefined;
}

const registeredOwnerRoutes = new WeakMap<Server, OwnerRoute[]>();

/** Every owner route the app registered (HEAD twins of GET routes left out): the per-route role tests walk them. */
export function ownerRoutesOf(app: FastifyInstance): OwnerRoute[] {
  return [...(registeredOwnerRoutes.get(app.server) ?? [])];
}

export interface OwnerApiOptions extends RouteContext {
  /** Each capability's owner routes (a fastify plugin each), registered inside the owner key's scope. */
  siteRoutes: FastifyPluginAsync<RouteContext>[];
}

export async function ownerApi(app: FastifyInstance, { siteRoutes, ...context }: OwnerApiOptions): Promise<void> {
  const { db, registry, providerToken } = context;
  // 401 when the key opens no site.
  app.get('/api/v1/sites', { schema: { response: { 200: SITES_REPLY } } }, async (request): Promise<SitesReply> => {
    const opened = await sitesOpenedBy(db, request, registry.sites, providerToken);
    return { status: 'success', sites: opened.map(siteSummary) };
  });

  // A plugin of its own, so that the key check stays inside it.
  const routes: OwnerRoute[] = [];
  registeredOwnerRoutes.set(app.server, routes);
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) {
        if (method === 'HEAD') continue;
        routes.push({ method, url: route.url, role: route.config?.role, audit: route.config?.audit });
      }
    });
    scope.addHook('preValidation', ownerSiteHook(context));
    // every change and send a route declares (`config: { audit }`) is in the audit log before its reply leaves
    scope.addHook('onSend', auditHook(db));
    for (const routes of siteRoutes) await scope.register(routes, context);
  });
}
