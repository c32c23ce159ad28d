import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Unit tests (tests/unit) and provider integration tests (tests/integration). Runtime tests pick happy-dom per file (`// @vitest-environment happy-dom`); `pushkit:site`
// resolves to a fixture site module and every feature flag is on, as in an everything-on build.
export default defineConfig({
  resolve: {
    alias: { 'pushkit:site': fileURLToPath(new URL('./tests/fixtures/site-module.ts', import.meta.url)) },
  },
  define: {
    'PK_FEATURES.brandingModal': 'true',
    'PK_FEATURES.mobileBox': 'true',
    'PK_FEATURES.childWindow': 'true',
    'PK_FEATURES.safari': 'true',
    'PK_FEATURES.iosHomeScreen': 'true',
    'PK_FEATURES.segments': 'true',
    'PK_FEATURES.clickSegments': 'true',
    'PK_FEATURES.shop': 'true',
    'PK_FEATURES.trackingConsent': 'true',
    'PK_FEATURES.triggerLoad': 'true',
    'PK_FEATURES.triggerClick': 'true',
    'PK_FEATURES.triggerMousedown': 'true',
    'PK_FEATURES.triggerInterval': 'true',
    'PK_FEATURES.triggerLeaveIntent': 'true',
    'PK_FEATURES.triggerScroll': 'true',
    'PK_FEATURES.triggerSubscribe': 'true',
    'PK_FEATURES.triggerEcom': 'true',
    'PK_FEATURES.triggerPersist': 'true',
  },
  test: {
    include: ['tests/unit/**/*.test.{ts,tsx}', 'tests/integration/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
