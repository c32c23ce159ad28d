// The owner API of a site's webhooks, inside the owner scope (ownerSiteHook has checked the site's key):
//   GET    /api/v1/sites/:name/webhooks                                   the endpoints
//   POST   /api/v1/sites/:name/webhooks                                   add one (its secret, shown once)
//   GET    /api/v1/sites/:name/webhooks/:id                               one
//   PATCH  /api/v1/sites/:name/webhooks/:id                               events, description, enabled
//   DELETE /api/v1/sites/:name/webhooks/:id                               remove it and its queue
//   POST   /api/v1/sites/:name/webhooks/:id/rotate-secret                 a new secret (shown once), with an overlap
//   GET    /api/v1/sites/:name/webhooks/:id/log                           its delivery log
//   POST   /api/v1/sites/:name/webhooks/:id/messages/:messageId/replay    send an event again
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { ownedSite } from '../http/owner-auth.ts';
import { SITE_PARAMS } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import {
  addSiteWebhook,
  removeSiteWebhook,
  replaySiteWebhookMessage,
  rotateSiteWebhookSecret,
  siteWebhook,
  siteWebhookLog,
  siteWebhooks,
  updateSiteWebhook,
} from './owner-webhooks.ts';
import {
  logQuery,
  messageParams,
  rotateBody,
  WEBHOOK_LOG_REPLY,
  WEBHOOK_REMOVED_REPLY,
  WEBHOOK_REPLAYED_REPLY,
  WEBHOOK_REPLY,
  WEBHOOK_SECRET_REPLY,
  webhookBody,
  webhookParams,
  WEBHOOKS_REPLY,
  webhookUpdateBody,
} from './schemas.ts';
import type { WebhookUrlPolicy } from './webhook-urls.ts';

/** The routes, checking endpoint URLs by the provider's `policy`. */
export function webhookRoutes(policy: WebhookUrlPolicy): FastifyPluginAsync<RouteContext> {
  return async (fastify: FastifyInstance, { db, clock }: RouteContext) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const base = '/api/v1/sites/:name/webhooks';

    app.get(base, { config: { role: 'owner' }, schema: { params: SITE_PARAMS, response: { 200: WEBHOOKS_REPLY } } }, async (request) => ({
      status: 'success' as const,
      endpoints: await siteWebhooks(db, ownedSite(request), clock()),
    }));

    app.post(
      base,
      {
        config: { role: 'owner', audit: 'webhook.create' },
        schema: { params: SITE_PARAMS, body: webhookBody, response: { 201: WEBHOOK_SECRET_REPLY } },
      },
      async (request, reply) => {
        const created = await addSiteWebhook(db, ownedSite(request), request.body, policy, clock());
        return reply.code(201).send({ status: 'success', ...created });
      },
    );

    app.get(
      `${base}/:id`,
      { config: { role: 'owner' }, schema: { params: webhookParams, response: { 200: WEBHOOK_REPLY } } },
      async (request) => ({
        status: 'success' as const,
        endpoint: await siteWebhook(db, ownedSite(request), request.params.id, clock()),
      }),
    );

    app.patch(
      `${base}/:id`,
      {
        config: { role: 'owner', audit: 'webhook.update' },
        schema: { params: webhookParams, body: webhookUpdateBody, response: { 200: WEBHOOK_REPLY } },
      },
      async (request) => ({
        status: 'success' as const,
        endpoint: await updateSiteWebhook(db, ownedSite(request), request.params.id, request.body, clock()),
      }),
    );

    app.delete(
      `${base}/:id`,
      { config: { role: 'owner', audit: 'webhook.remove' }, schema: { params: webhookParams, response: { 200: WEBHOOK_REMOVED_REPLY } } },
      async (request) => {
        await removeSiteWebhook(db, ownedSite(request), request.params.id);
        return { status: 'success' as const, endpointId: request.params.id, removed: true as const };
      },
    );

    app.post(
      `${base}/:id/rotate-secret`,
      {
        config: { role: 'owner', audit: 'webhook.rotate-secret' },
        schema: { params: webhookParams, body: rotateBody, response: { 200: WEBHOOK_SECRET_REPLY } },
      },
      async (request) => ({
        status: 'success' as const,
        ...(await rotateSiteWebhookSecret(db, ownedSite(request), request.params.id, request.body?.overlapHours, clock())),
      }),
    );

    app.get(
      `${base}/:id/log`,
      { config: { role: 'owner' }, schema: { params: webhookParams, querystring: logQuery, response: { 200: WEBHOOK_LOG_REPLY } } },
      async (request) => ({
        status: 'success' as const,
        ...(await siteWebhookLog(db, ownedSite(request), request.params.id, request.query.limit)),
      }),
    );

    app.post(
      `${base}/:id/messages/:messageId/replay`,
      { config: { role: 'owner', audit: 'webhook.replay' }, schema: { params: messageParams, response: { 200: WEBHOOK_REPLAYED_REPLY } } },
      async (request) => {
        const { id, messageId } = request.params;
        await replaySiteWebhookMessage(db, ownedSite(request), id, messageId, clock());
        return { status: 'success' as const, messageId, endpointId: id };
      },
    );
  };
}
