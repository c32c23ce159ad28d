/// <reference lib="webworker" />
// The push service worker (sw.js) of a push-kit site: the push handlers and the safe-update lifecycle.
import { workerSite } from 'pushkit:worker-site';
import { installPushHandlers } from './push-handlers.ts';
import { installLifecycle } from './lifecycle.ts';

declare const self: ServiceWorkerGlobalScope;
installPushHandlers(self, workerSite);
installLifecycle(self);
