// The provider server: the calls of spec section 7, the child window files, notification reports and the
// owner API, on fastify. Every failure is `{status: "failure", message}` naming what is wrong.
import cors from '@fastify/cors';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { DatabaseUnavailableError, type Database } from '../store/database.ts';
import { DEFAULT_RATE_LIMIT, RateLimitError, registerRateLimit, type RateLimitOptions } from './rate-limit.ts';
import { failure, RequestError, sendReply } from './reply.ts';
import { corsDelegator, SiteRegistry } from './site-access.ts';
import type { HostedSite } from '../sites.ts';
import type { CampaignQueue } from '../push/campaign-queue.ts';
import { registerConditionCheckRoute } from './routes/condition-check.ts';
import { registerDashboardRoutes } from './routes/dashboard.ts';
import { registerNotificationEventRoute } from './routes/notification-events.ts';
import { registerOwnerApi } from './routes/owner-api.ts';
import { registerShopRoutes } from './routes/shop.ts';
import { registerSiteFileRoutes } from './routes/site-files.ts';
import { registerSyncRoute } from './routes/sync.ts';
import { registerVisitorDataRoutes } from './routes/visitor-data.ts';

export const BODY_LIMIT = 64 * 1024;

export interface CreateAppOptions {
  sites: HostedSite[];
  db: Database;
  logger?: boolean;
  /** Sends campaigns created through the owner API in the background. */
  campaigns?: CampaignQueue;
  /** Per-IP and per-site limits; false turns them off (load tests). Default: DEFAULT_RATE_LIMIT. */
  rateLimit?: RateLimitOptions | false;
}

export async function createApp(options: CreateAppOptions): Promise<FastifyInstance> {
  // maxParamLength: a path id longer than fastify's 100 would get its own 414 before the route names it
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    routerOptions: { maxParamLength: 256 },
  });
  const context = { db: options.db, registry: new SiteRegistry(options.sites), campaigns: options.campaigns };

  await app.register(formbody, { bodyLimit: BODY_LIMIT });
  await app.register(cors, { hook: 'preHandler', delegator: corsDelegator(context.registry) });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof RateLimitError) reply.header('retry-after', String(error.retryAfterSeconds));
    if (error instanceof RequestError) return sendReply(request, reply, failure(error.message), error.statusCode);
    if (error instanceof DatabaseUnavailableError) {
      return sendReply(request, reply.header('retry-after', '5'), failure('database unavailable, try again later'), 503);
    }
    // SQLSTATE class 22 (data exception: NUL byte, out-of-range number) is input the checks let through
    if (typeof error.code === 'string' && /^22[0-9A-Z]{3}$/.test(error.code)) {
      return sendReply(request, reply, failure(`request: a value the database refuses: ${error.message}`), 400);
    }
    const statusCode = error.statusCode ?? 500;
    if (statusCode >= 400 && statusCode < 500) {
      const message =
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? `body: larger than ${BODY_LIMIT} bytes`
          : error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
            ? `body: ${error.message}`
            : `request: ${error.message}`;
      return sendReply(request, reply, failure(message), statusCode);
    }
    request.log.error(error);
    return sendReply(request, reply, failure('internal error'), 500);
  });
  app.setNotFoundHandler((request, reply) =>
    sendReply(request, reply, failure(`no such call: ${request.method} ${request.url.split('?')[0]}`), 404),
  );

  if (options.rateLimit !== false) registerRateLimit(app, context.registry, options.rateLimit ?? DEFAULT_RATE_LIMIT);
  registerSyncRoute(app, context);
  registerVisitorDataRoutes(app, context);
  registerShopRoutes(app, context);
  registerNotificationEventRoute(app, context);
  registerSiteFileRoutes(app, context);
  registerOwnerApi(app, context);
  registerConditionCheckRoute(app, context);
  registerDashboardRoutes(app, context);
  return app;
}
