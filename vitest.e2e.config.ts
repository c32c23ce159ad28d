import { defineConfig } from 'vitest/config';

// Browser end-to-end tests: real Debian Chromium (playwright-core), real provider, one browser per file.
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
