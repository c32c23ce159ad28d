// POST /syncSubscriptionAction.php: the subscription sync of spec section 7. A failure is a 4xx with the
// `{status: "failure", message, code}` body, which the runtime treats like any failed sync.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SERVER_ERRORS } from '../errors.ts';
import { checkCallbackHook, sendReply } from '../http/reply.ts';
import { FAILURE_REPLY } from '../http/reply-schemas.ts';
import { successReply, type ZodTypeProvider } from '../http/route-schemas.ts';
import { requireOrigin } from '../http/site-access.ts';
import { runSyncAction } from './subscription-sync.ts';
import { warmSyncBatches } from './sync-batch.ts';
import { requireAllowedPushService } from './push-endpoint.ts';
import { syncPayloadSchema } from './sync-payload.ts';
import type { RouteContext } from '../http/route-context.ts';
import { subscriberInserted } from '../automations/index.ts';
import { subscriptionVapidKeyId } from '../keys/index.ts';
import type { SyncReply } from '../../contract/sync.ts';

const SYNC_SUCCESS = successReply({ subscriberId: z.string(), subscriberSecret: z.string().optional() });

export async function syncRoute(fastify: FastifyInstance, { db, registry, pushServices, clock, stateDir }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // PostgreSQL's connections and the batch's statement ready before the first request (sync-batch.ts)
  app.addHook('onReady', () => warmSyncBatches(db));
  app.post(
    '/syncSubscriptionAction.php',
    { preValidation: checkCallbackHook, schema: { body: syncPayloadSchema, response: { 200: SYNC_SUCCESS, '4xx': FAILURE_REPLY } } },
    async (request, reply) => {
      const payload = request.body;
      const site = registry.require(payload.hash, 'hash');
      requireOrigin(request, site);
      requireAllowedPushService(payload, pushServices);
      const keyId =
        payload.subscription?.endpoint || payload.subscriptionEndPoint
          ? await subscriptionVapidKeyId(stateDir, site, payload.vapidPublicKey)
          : undefined;
      const { reply: result, welcomeEnabled } = await runSyncAction(db, site.hash, payload, keyId);
      // Scheduled after the sync is stored: a failure here answers 503, the browser syncs again (insert-failed)
      // and the welcome, scheduled once per subscriber, is not doubled. The insert's statement read the owner's
      // switch of the welcome: when it is off (or never changed and off in the config) there is nothing to read.
      const welcomeOff = welcomeEnabled === false || (welcomeEnabled === null && !site.config.automations.welcome.enabled);
      if (result.status === 'success' && (payload.action === 'insert' || payload.action === 'insert-failed') && !welcomeOff) {
        await subscriberInserted(db, site, result.subscriberId, clock());
      }
      const status = result.status === 'success' ? 200 : SERVER_ERRORS[result.code].status;
      return sendReply(request, reply, result satisfies SyncReply, status);
    },
  );
}
