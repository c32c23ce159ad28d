/// <reference lib="webworker" />
// The push service worker (placeholder until the worker lands).
import { workerSite } from 'pushkit:worker-site';

declare const self: ServiceWorkerGlobalScope;
self.addEventListener('push', (event) => {
  const data = event.data?.json() as { title?: string; body?: string } | undefined;
  if (data?.title) event.waitUntil(self.registration.showNotification(data.title, { body: data.body, icon: workerSite.iconUrl }));
});
