// POST /syncSubscriptionAction.php: the subscription sync of spec section 7. A failure is a 4xx with the
// `{status: "failure", message}` body, which the runtime treats like any failed sync.
import type { FastifyInstance } from 'fastify';
import { parseParams } from '../params.ts';
import { checkCallback, sendReply } from '../reply.ts';
import { requireOrigin } from '../site-access.ts';
import { runSyncAction } from '../../store/subscription-sync.ts';
import { syncPayloadSchema } from '../sync-payload.ts';
import type { RouteContext } from './context.ts';
import type { SyncReply } from '../../../contract/sync.ts';

export function registerSyncRoute(app: FastifyInstance, { db, registry }: RouteContext): void {
  app.post('/syncSubscriptionAction.php', async (request, reply) => {
    checkCallback(request);
    const payload = parseParams(syncPayloadSchema, request.body, 'body');
    const site = registry.require(payload.hash, 'hash');
    requireOrigin(request, site);
    const result: SyncReply = await runSyncAction(db, site.hash, payload);
    // The parameters passed, so a failure is a subscriber the site does not have (404); a missing parameter
    // the schema let through would still be the caller's mistake (400).
    const status = result.status === 'success' ? 200 : / is required$/.test(result.message) ? 400 : 404;
    return sendReply(request, reply, result, status);
  });
}
