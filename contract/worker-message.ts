// The page hands the subscription to its service worker, which keeps it in IndexedDB (runtime/subscription-db.ts)
// for when the browser renews it. The worker owns that database, so idb stays out of push.js (1.3 KB gzip).
export const SUBSCRIPTION_MESSAGE = 'pushkitSubscription';

export type SubscriptionMessage = Record<typeof SUBSCRIPTION_MESSAGE, { endpoint: string; keys?: Record<string, string> } | null>;
