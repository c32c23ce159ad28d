import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { longestFirst } from './tests/support/longest-first.ts';
import { allFeatures, constantDefines, DEFAULT_CONSTANTS, featureDefines } from './compiler/features.ts';

// The integration files that take longest (13 to 56 s each in a clean-clone run, 19:46 UTC, two workers), longest
// first (tests/support/longest-first.ts): on a fresh clone Vitest's order by file size left send-command (52 s) to
// start a quarter of the way in and the stage to end on whichever long file came last. Unit files keep Vitest's order.
const LONGEST_FIRST = [
  'package-install',
  'send-command',
  'automations',
  'server-storage',
  'dev-command',
  'cli-finds-provider',
  'campaign-timing',
  'import-command',
  'keys-command',
  'cli-members',
  'security-private-state',
  'keys-vapid-command',
  'cli-webhooks',
  'embedded-lock',
];

// Unit tests (tests/unit) and provider integration tests (tests/integration). Runtime tests pick happy-dom per file (`// @vitest-environment happy-dom`); `pushkit:site`
// (and push.js's core's `pushkit:core-site`) resolves to a fixture site module and every feature flag is on, as in an everything-on build.
export default defineConfig({
  resolve: {
    alias: {
      'pushkit:site': fileURLToPath(new URL('./tests/fixtures/site-module.ts', import.meta.url)),
      'pushkit:core-site': fileURLToPath(new URL('./tests/fixtures/site-module.ts', import.meta.url)),
    },
  },
  define: { ...featureDefines(allFeatures()), ...constantDefines(DEFAULT_CONSTANTS), 'PK_CHUNKS.lifecycle': '"push.lifecycle.js"' },
  test: {
    include: ['tests/unit/**/*.test.{ts,tsx}', 'tests/integration/**/*.test.{ts,tsx}'],
    // A test that makes an embedded database from scratch (initdb and every migration in PGlite) took 30 to 80 s at
    // load 17 to 28 on two cores, where 30 s failed six of them: a test is called hung at two minutes, as a start is
    // (tests/support/process-ready.ts).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    sequence: { sequencer: longestFirst(LONGEST_FIRST) },
  },
});
