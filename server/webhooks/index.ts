// What other parts of the provider and cli/ use of webhooks: the events the capabilities emit (one call each),
// the owner routes and use cases, the dispatcher start-provider runs, and the URL policy of the provider's flags.
export {
  campaignCompleted,
  deliveryResultsStatement,
  notificationReported,
  orderConverted,
  subscriberBlocked,
  subscriberEvent,
} from './webhook-emit.ts';
export { webhookRoutes } from './routes.ts';
export {
  addSiteWebhook,
  removeSiteWebhook,
  replaySiteWebhookMessage,
  rotateSiteWebhookSecret,
  siteWebhook,
  siteWebhookLog,
  siteWebhooks,
  updateSiteWebhook,
} from './owner-webhooks.ts';
export {
  WebhookDispatcher,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS_SECONDS,
  type WebhookDispatcherOptions,
} from './webhook-dispatcher.ts';
export {
  ALLOW_HTTP_WEBHOOKS_ENV,
  WEBHOOK_PRIVATE_ORIGINS_ENV,
  webhookUrlPolicy,
  webhookUrlProblem,
  type WebhookUrlPolicy,
  type WebhookUrlSettings,
} from './webhook-urls.ts';
export { signedHeaders, webhookSignature } from './webhook-signing.ts';
