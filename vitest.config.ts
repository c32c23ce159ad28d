import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { allFeatures, constantDefines, DEFAULT_CONSTANTS, featureDefines } from './compiler/features.ts';

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
  },
});
