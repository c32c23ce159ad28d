// Which property names the browser bundles shorten. Only names their authors marked internal are mangled: a
// leading `_` (`_sync`) or a single trailing `_` (`pending_`). Everything else keeps its name, because it may
// cross a boundary the bundler cannot see: the sync form and replies (contract/), the service workers and the
// child window (separate bundles, postMessage), JSON kept in storage by an older push.js, the host page's
// `pushkit` API and the objects it hands in (shop events), the generated site module (quoted keys, which
// esbuild never mangles). tests/unit/bundle-mangling.test.ts checks that no such name follows the convention.

/** Internal property names: `_name` or `name_` (not `__name__`, reserved below). */
export const MANGLED_PROPS = /^_|[^_]_$/;

/**
 * Never mangled even if they match: `__proto__` and other dunder names (esbuild's default reservation), and
 * the wire names that look internal: `_`, the cache buster of the c.gif beacon (contract/visitor-calls.ts).
 */
export const RESERVED_PROPS = /^(?:__.*__|_)$/;

/**
 * The internal names that cross from push.js's core into a chunk: the members of the services object the core hands
 * over (runtime/services.ts), the chunk's exports (runtime/chunks/lifecycle.ts) and the runtime it starts
 * (runtime/lifecycle-runtime.ts). esbuild picks mangled names per output file, so the core and a chunk would
 * disagree; these are pinned to one name each through esbuild's mangle cache. tests/unit/bundle-mangling.test.ts
 * checks the list against those declarations.
 */
export const CHUNK_BOUNDARY_PROPS = [
  'site_',
  'subscriberId_',
  'secret_',
  'subscriptionId_',
  'trackingAllowed_',
  'optedOut_',
  'get_',
  'jsonp_',
  'postForm_',
  'beacon_',
  'local_',
  'session_',
  'cookies_',
  'emit_',
  'on_',
  'loadedAt_',
  'startedAt_',
  '_start',
  '_transport',
  '_landing',
  '_ready',
  '_capable',
  '_triggerOptIn',
  '_triggerOptOut',
  '_fire',
  '_addToSegment',
  '_removeFromSegment',
  '_syncConsent',
  '_join',
] as const;

/** The mangle cache that pins them: `$0`, `$1`, ... (esbuild never hands a cached name to another property). */
export const BOUNDARY_MANGLE_CACHE: Record<string, string> = Object.fromEntries(
  CHUNK_BOUNDARY_PROPS.map((name, index) => [name, '$' + index.toString(36)]),
);
