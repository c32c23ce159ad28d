// The dashboard's test device worker (dashboard/src/compose/testDevice.ts): registered by the owner's own tab at
// /dashboard/test-device/<site>/ on the provider's origin, it shows the test sends the provider pushes to that
// subscription, as the site's worker would (the same declarative payload, contract/push-payload.ts), and opens the
// page a click asks for. It reports nothing: a test is no one's delivery, shown or click.
const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (globalThis));

worker.addEventListener('install', () => void worker.skipWaiting());
worker.addEventListener('activate', (event) => event.waitUntil(worker.clients.claim()));

/** @param {unknown} value */
const textOf = (value) => (typeof value === 'string' ? value : undefined);

worker.addEventListener('push', (event) => {
  /** @type {Record<string, unknown>} */
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    // not JSON: shown with the default title
  }
  const declarative = message.notification && typeof message.notification === 'object';
  const notification = /** @type {Record<string, unknown>} */ (declarative ? message.notification : message);
  const actions = Array.isArray(notification.actions) ? notification.actions.slice(0, 2) : [];
  const url = textOf(notification.navigate) ?? textOf(notification.url);
  event.waitUntil(
    worker.registration.showNotification(textOf(notification.title) ?? 'push-kit test', {
      body: textOf(notification.body),
      icon: textOf(notification.icon),
      image: textOf(notification.image),
      tag: textOf(notification.tag) ?? 'pushkit-test',
      actions: actions.map((action) => ({ action: String(action.action), title: String(action.title) })),
      data: {
        url,
        actions: Object.fromEntries(actions.map((action) => [String(action.action), textOf(action.navigate) ?? textOf(action.url)])),
      },
    }),
  );
});

worker.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data ?? {};
  const url = (event.action && data.actions?.[event.action]) || data.url;
  if (typeof url === 'string' && /^https?:\/\//.test(url)) event.waitUntil(worker.clients.openWindow(url));
});
