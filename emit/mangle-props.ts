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
