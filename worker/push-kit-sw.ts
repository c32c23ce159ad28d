/// <reference lib="webworker" />
// push-kit-sw.js: the push handlers alone, for a site that already has a service worker. The site's worker
// pulls it in with `importScripts('/push-kit-sw.js')` at its top level (handlers must be added while the
// worker script first runs). It adds event listeners and nothing else: no install or activate handler, no
// skipWaiting(), no clients.claim(), no fetch handler; the host worker keeps its own lifecycle and fetches.
// One worker serves every browser here, so the renewal sync names Firefox from the user agent.
import { workerSite } from 'pushkit:worker-site';
import { installPushHandlers } from './push-handlers.ts';

declare const self: ServiceWorkerGlobalScope;
installPushHandlers(self, workerSite, /Firefox\//.test(self.navigator.userAgent) ? 'firefox' : 'chrome');
