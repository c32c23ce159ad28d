// The owner API of a site's VAPID key ring, inside the owner scope (ownerSiteHook has checked the site's key):
//   GET    /api/v1/sites/:name/vapid-keys          the ring, with the subscribers on each key
//   POST   /api/v1/sites/:name/vapid-keys/rotate   a new current key; the old one becomes a legacy key
//   DELETE /api/v1/sites/:name/vapid-keys/:key     retire a legacy key no subscriber uses (409 while one does)
import type { FastifyInstance } from 'fastify';
import { ownedSite } from '../http/owner-auth.ts';
import { SITE_PARAMS } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { VAPID_KEY_RETIRED_REPLY, VAPID_KEY_RING_REPLY, VAPID_KEY_ROTATION_REPLY, vapidKeyParams } from './schemas.ts';
import { retireVapidKey, rotateVapidKey, vapidKeyRing } from './vapid-key-ring.ts';

export async function vapidKeyRoutes(fastify: FastifyInstance, { db, stateDir }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/v1/sites/:name/vapid-keys',
    { config: { role: 'owner' }, schema: { params: SITE_PARAMS, response: { 200: VAPID_KEY_RING_REPLY } } },
    async (request) => ({ status: 'success' as const, ...(await vapidKeyRing(db, stateDir, ownedSite(request))) }),
  );

  app.post(
    '/api/v1/sites/:name/vapid-keys/rotate',
    { config: { role: 'owner', audit: 'vapid-key.rotate' }, schema: { params: SITE_PARAMS, response: { 200: VAPID_KEY_ROTATION_REPLY } } },
    async (request) => {
      const site = ownedSite(request);
      const rotation = await rotateVapidKey(db, stateDir, site);
      return { status: 'success' as const, ...rotation, ring: await vapidKeyRing(db, stateDir, site) };
    },
  );

  app.delete(
    '/api/v1/sites/:name/vapid-keys/:key',
    {
      config: { role: 'owner', audit: 'vapid-key.retire' },
      schema: { params: vapidKeyParams, response: { 200: VAPID_KEY_RETIRED_REPLY } },
    },
    async (request) => {
      const site = ownedSite(request);
      await retireVapidKey(db, stateDir, site, request.params.key);
      return { status: 'success' as const, retired: request.params.key, ring: await vapidKeyRing(db, stateDir, site) };
    },
  );
}
