// The page hands the subscription to the service worker, which keeps it in IndexedDB (subscription-db.ts)
// for when the browser renews it. The worker owns the database, so idb stays out of push.js (1.3 KB gzip).
export const SUBSCRIPTION_MESSAGE = 'pushkitSubscription';

export interface SubscriptionMessage {
  [SUBSCRIPTION_MESSAGE]: { endpoint: string; keys?: Record<string, string> } | null;
}

export function tellWorker(scope: string, subscription: SubscriptionMessage[typeof SUBSCRIPTION_MESSAGE]): void {
  navigator.serviceWorker?.getRegistration(scope).then(
    (registration) => registration?.active?.postMessage({ [SUBSCRIPTION_MESSAGE]: subscription }),
    () => undefined,
  );
}
