/// <reference lib="webworker" />
// The Firefox push worker (sw-firefox.js): the same handlers and lifecycle, and the renewal sync carries
// Firefox's encryption key and browser type.
import { workerSite } from 'pushkit:worker-site';
import { installPushHandlers } from './push-handlers.ts';
import { installLifecycle } from './lifecycle.ts';

declare const self: ServiceWorkerGlobalScope;
installPushHandlers(self, workerSite, 'firefox');
installLifecycle(self);
