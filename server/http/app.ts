// The provider server: the calls of spec section 7, the child window files, notification reports and the
// owner API, on fastify. Every failure is `{status: "failure", message, code}` naming what is wrong, its code
// from the catalogue in server/errors.ts.
import formbody from '@fastify/formbody';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { Database } from '../db/database.ts';
import { isStorageFull } from '../db/storage-full.ts';
import { DEFAULT_RATE_LIMIT, RateLimitError, registerRateLimit, type RateLimitOptions } from './rate-limit.ts';
import { isServerError, ServerError } from '../errors.ts';
import { failure, failureOf, sendReply } from './reply.ts';
import { SiteRegistry } from './site-access.ts';
import { registerCors } from './cors.ts';
import type { HostedSite } from '../sites.ts';
import type { CampaignStarter, RouteContext } from './route-context.ts';
import { PushServiceAllowlist } from '../push/push-services.ts';
import { ownerApi } from './owner-api.ts';
import { automationRoutes } from '../automations/index.ts';
import { campaignRoutes, notificationEventRoute } from '../campaigns/index.ts';
import { dashboardRoutes } from '../dashboard/index.ts';
import { feedRoutes, feedUrlPolicy, type FeedUrlPolicy } from '../feeds/index.ts';
import { composeRoutes } from '../compose/index.ts';
import { importRoutes } from '../import/index.ts';
import { memberRoutes, signInRoute } from '../members/index.ts';
import { vapidKeyRoutes } from '../keys/index.ts';
import { segmentRoutes } from '../segments/index.ts';
import { audienceRoutes } from '../audiences/index.ts';
import { productRoutes, shopRoutes } from '../shop/index.ts';
import { siteFileRoutes } from '../site-files/index.ts';
import { statsRoutes } from '../stats/index.ts';
import { subscriberRoutes } from '../subscribers/index.ts';
import { syncRoute } from '../sync/index.ts';
import { visitorDataRoutes } from '../visitors/index.ts';
import { webhookRoutes, webhookUrlPolicy, type WebhookUrlPolicy } from '../webhooks/index.ts';
import { isTrustedProxy, type TrustProxy } from './trust-proxy.ts';
import { capConnectionsPerAddress, DEFAULT_CONNECTION_LIMITS, timeoutCheckIntervalMs, type ConnectionLimits } from './connection-limit.ts';
import { endConnectionsOnClose } from './close-connections.ts';
import { serializerCompiler, validatorCompiler } from './route-schemas.ts';
import { systemClock, type Clock } from '../clock.ts';
import { STATE_DIR } from '../state-paths.ts';

export const BODY_LIMIT = 64 * 1024;
/** Seconds a client waits before trying again when the disk is full (an operator has to free room). */
export const STORAGE_FULL_RETRY_SECONDS = 60;

export interface CreateAppOptions {
  sites: HostedSite[];
  db: Database;
  logger?: boolean;
  /** Sends campaigns created through the owner API in the background. */
  campaigns?: CampaignStarter;
  /** Per-IP and per-site limits; false turns them off (load tests). Default: DEFAULT_RATE_LIMIT. */
  rateLimit?: RateLimitOptions | false;
  /** Proxies trusted to name the client (X-Forwarded-For), fastify's `trustProxy`; default none. */
  trustProxy?: TrustProxy;
  /** The push services a subscription's endpoint may be on; default PUSHKIT_PUSH_SERVICES, else the known ones. */
  pushServices?: PushServiceAllowlist;
  /** The time automated messages are scheduled by; default the system clock. */
  clock?: Clock;
  /** Request and idle timeouts, the cap on one address's open connections, the close's grace; default DEFAULT_CONNECTION_LIMITS. */
  connectionLimits?: Partial<ConnectionLimits>;
  /** Where webhook endpoints may point (server/webhooks/webhook-urls.ts); default: the environment's settings. */
  webhooks?: WebhookUrlPolicy;
  /** Where feeds may be fetched from (server/feeds/feed-urls.ts); default: the environment's --allow-feed-hosts. */
  feeds?: FeedUrlPolicy;
  /** The project's state folder, where the sites' key files are; default `.push-kit`. */
  stateDir?: string;
  /** The token of the provider file (server/provider-file.ts): a bearer that opens every hosted site's owner API as an owner. */
  providerToken?: string;
}

export async function createApp(options: CreateAppOptions): Promise<FastifyInstance> {
  const limits: ConnectionLimits = {
    requestTimeoutMs: options.connectionLimits?.requestTimeoutMs ?? DEFAULT_CONNECTION_LIMITS.requestTimeoutMs,
    connectionTimeoutMs: options.connectionLimits?.connectionTimeoutMs ?? DEFAULT_CONNECTION_LIMITS.connectionTimeoutMs,
    maxConnectionsPerAddress: options.connectionLimits?.maxConnectionsPerAddress ?? DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress,
    closeGraceMs: options.connectionLimits?.closeGraceMs ?? DEFAULT_CONNECTION_LIMITS.closeGraceMs,
  };
  // maxParamLength: a path id longer than fastify's 100 would get its own 414 before the route names it
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    trustProxy: options.trustProxy ?? false,
    routerOptions: { maxParamLength: 256 },
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    http: {
      connectionsCheckingInterval: timeoutCheckIntervalMs(limits.requestTimeoutMs),
      // Node (20) lets a body trickle past the request timeout while the headers timeout is the longer of the two
      ...(limits.requestTimeoutMs > 0 ? { headersTimeout: Math.min(60_000, limits.requestTimeoutMs) } : {}),
    },
  });
  capConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress, isTrustedProxy(options.trustProxy));
  const endConnections = endConnectionsOnClose(app.server, limits.closeGraceMs);
  app.addHook('preClose', (done) => {
    endConnections();
    done();
  });
  const context: RouteContext = {
    db: options.db,
    registry: new SiteRegistry(options.sites),
    campaigns: options.campaigns,
    pushServices: options.pushServices ?? PushServiceAllowlist.fromEnvironment(),
    clock: options.clock ?? systemClock,
    stateDir: options.stateDir ?? STATE_DIR,
    providerToken: options.providerToken,
  };

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(formbody, { bodyLimit: BODY_LIMIT });
  // preValidation, as every check before a route's own: a request its schemas refuse still gets CORS headers
  // (the page can read why), is counted by the rate limit and, on the owner API, needs the key first.
  registerCors(app, context.registry);

  // No reply is ever sniffed into another type: a JSON reply naming a caller's text must stay JSON.
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof RateLimitError) reply.header('retry-after', String(error.retryAfterSeconds));
    // before any catalogue failure: an unavailable database may be one whose disk is full
    if (isStorageFull(error)) {
      request.log.error(error);
      return sendReply(request, reply.header('retry-after', String(STORAGE_FULL_RETRY_SECONDS)), failure('E_STORAGE_FULL'), 503);
    }
    if (isServerError(error, 'E_DATABASE_UNAVAILABLE')) {
      return sendReply(request, reply.header('retry-after', '5'), failure('E_DATABASE_UNAVAILABLE'), 503);
    }
    if (error instanceof ServerError) return sendReply(request, reply, failureOf(error), error.statusCode);
    // SQLSTATE class 22 (data exception: NUL byte, out-of-range number) is input the checks let through
    if (typeof error.code === 'string' && /^22[0-9A-Z]{3}$/.test(error.code)) {
      return sendReply(request, reply, failure('E_DATABASE_REFUSED', { problem: error.message }), 400);
    }
    const statusCode = error.statusCode ?? 500;
    if (statusCode >= 400 && statusCode < 500) {
      const refused =
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? failure('E_BODY_TOO_LARGE', { limit: BODY_LIMIT })
          : error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
            ? failure('E_BODY_INVALID', { problem: error.message })
            : failure('E_REQUEST_INVALID', { problem: error.message });
      return sendReply(request, reply, refused, statusCode);
    }
    request.log.error(error);
    return sendReply(request, reply, failure('E_INTERNAL'), 500);
  });
  app.setNotFoundHandler((request, reply) =>
    sendReply(request, reply, failure('E_ROUTE_UNKNOWN', { method: request.method, path: request.url.split('?')[0]! }), 404),
  );

  if (options.rateLimit !== false) registerRateLimit(app, context.registry, options.rateLimit ?? DEFAULT_RATE_LIMIT);
  // Each group of routes is an encapsulated plugin: the hooks one adds (the owner API's key check) stay in it.
  await app.register(syncRoute, context);
  await app.register(visitorDataRoutes, context);
  await app.register(shopRoutes, context);
  await app.register(notificationEventRoute, context);
  await app.register(siteFileRoutes, context);
  await app.register(signInRoute, context);
  await app.register(ownerApi, {
    ...context,
    siteRoutes: [
      subscriberRoutes,
      segmentRoutes,
      audienceRoutes,
      campaignRoutes,
      statsRoutes,
      automationRoutes,
      productRoutes,
      webhookRoutes(options.webhooks ?? webhookUrlPolicy()),
      feedRoutes(options.feeds ?? feedUrlPolicy()),
      importRoutes,
      vapidKeyRoutes,
      memberRoutes,
      composeRoutes,
    ],
  });
  await app.register(dashboardRoutes, { prefix: '/dashboard' });
  return app;
}
