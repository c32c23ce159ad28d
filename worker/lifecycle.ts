/// <reference lib="webworker" />
// The lifecycle of push-kit's own sw.js. A new version of sw.js takes over at once (skipWaiting) only when the
// worker it replaces is an older sw.js: neither has a fetch handler, so the pages it controls cannot tell. When
// the registration's active worker is another script (the site's own worker at the same scope), the new
// worker waits like any other, so the site's worker keeps serving its pages until they close. It never calls
// clients.claim(): pages loaded without a worker stay without one until their next load.

/** Whether a worker installing at `ownUrl` may skip waiting over the registration's active worker. */
export function maySkipWaiting(activeScriptUrl: string | undefined, ownUrl: string): boolean {
  if (!activeScriptUrl) return true;
  try {
    const active = new URL(activeScriptUrl);
    const own = new URL(ownUrl);
    return active.origin === own.origin && active.pathname === own.pathname;
  } catch {
    return false;
  }
}

export function installLifecycle(scope: ServiceWorkerGlobalScope): void {
  scope.addEventListener('install', (event) => {
    if (maySkipWaiting(scope.registration.active?.scriptURL, scope.location.href)) event.waitUntil(scope.skipWaiting());
  });
}
