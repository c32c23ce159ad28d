/// <reference lib="webworker" />
// The push service worker (sw.js) of a push-kit site.
import { workerSite } from 'pushkit:worker-site';
import { installPushHandlers } from './push-handlers.ts';

declare const self: ServiceWorkerGlobalScope;
installPushHandlers(self, workerSite);
