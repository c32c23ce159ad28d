// POST /syncSubscriptionAction.php: the subscription sync of spec section 7.
import type { FastifyInstance } from 'fastify';
import { parseParams } from '../params.ts';
import { checkCallback, sendReply } from '../reply.ts';
import { requireOrigin } from '../site-access.ts';
import { runSyncAction } from '../subscription-sync.ts';
import { syncPayloadSchema } from '../sync-payload.ts';
import type { RouteContext } from './context.ts';

export function registerSyncRoute(app: FastifyInstance, { db, registry }: RouteContext): void {
  app.post('/syncSubscriptionAction.php', async (request, reply) => {
    checkCallback(request);
    const payload = parseParams(syncPayloadSchema, request.body);
    const site = registry.require(payload.hash, 'hash');
    requireOrigin(request, site);
    return sendReply(request, reply, await runSyncAction(db, site.hash, payload));
  });
}
