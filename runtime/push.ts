// Entry of push.js, the core every page view runs: replaces the `pushkit` queue stub with the API, then runs the
// calls queued before load (synchronously, so queued callback registrations are in place before anything can
// report). The lifecycle chunk beside push.js is loaded only on a view that needs it (api.ts).
import { site } from 'pushkit:core-site';
import type { LifecycleChunk } from './chunks/lifecycle.ts';
import { startRuntime } from './api.ts';
import { loadChunk } from './chunk-loader.ts';
import { logSwallowed } from './guard.ts';

try {
  const host = window as unknown as { pushkit?: unknown };
  const queued = host.pushkit;
  if (!site.isInactive && (queued === undefined || Array.isArray(queued))) {
    const api = startRuntime(site, () => loadChunk<LifecycleChunk>(PK_CHUNKS.lifecycle));
    api.cb = queued && (queued as { cb?: unknown }).cb;
    host.pushkit = api;
    for (const call of (queued as unknown[] | undefined) || []) api.push(call);
  }
} catch (error) {
  logSwallowed(error);
}
