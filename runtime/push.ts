// Entry of push.js: replaces the `pushkit` queue stub with the API, then runs the calls queued before load
// (synchronously, so queued callback registrations are in place before anything can report).
import { site } from 'pushkit:site';
import { startRuntime } from './api.ts';
import { logSwallowed } from './guard.ts';

try {
  const host = window as unknown as { pushkit?: unknown };
  const queued = host.pushkit;
  if (!site.isInactive && (queued === undefined || Array.isArray(queued))) {
    const api = startRuntime(site);
    api.cb = queued && (queued as { cb?: unknown }).cb;
    host.pushkit = api;
    for (const call of (queued as unknown[] | undefined) || []) api.push(call);
  }
} catch (error) {
  logSwallowed(error);
}
