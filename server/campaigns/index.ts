// What other parts of the provider use of campaigns: the owner routes and notification reports, the queue
// start-provider runs, the runner and sender automations reuse, and the owner's use cases.
export { campaignRoutes } from './routes.ts';
export { notificationEventRoute } from './report-routes.ts';
export { CampaignQueue, type CampaignQueueOptions } from './campaign-queue.ts';
export { runCampaign, type RunCounts } from './campaign-runner.ts';
export { vapidSubjectOf, type SendCampaignOptions as CampaignSenderOptions } from './campaign-sender.ts';
export { conversionWindowOf, DEFAULT_CONVERSION_WINDOW_HOURS } from './campaign-store.ts';
export { CAP_WINDOW_MS } from './guardrails.ts';
export type { Delivery } from './delivery-store.ts';
export { automationFailures, campaignFailures, subscriberFailures } from './delivery-failures.ts';
export { cancelSiteCampaign, createSiteCampaign, siteCampaign, siteCampaigns } from './owner-campaigns.ts';
export {
  claimedDelivery,
  DatabaseDeliveryStore,
  deliveryPayload,
  type ClaimedRow,
  type DeliveryStoreSite,
  type GuardedRow,
  onSignableKey,
  type SignableKeys,
} from './database-delivery-store.ts';
export { sendCampaign, type SendCampaignOptions, type SendCampaignResult } from './send-campaign.ts';
export { CLAIM_LEASE_ENV, claimLeaseSeconds, claimLeaseSetting, DEFAULT_CLAIM_LEASE_SECONDS, unclaimed } from './claim-lease.ts';
export { DELIVERY_RETENTION_ENV, deliveryRetentionDays, pruneDeliveries } from './delivery-pruning.ts';
export { pruneCampaignClicks } from './click-pruning.ts';
