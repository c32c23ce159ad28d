import { defineConfig } from 'vitest/config';

// Browser end-to-end tests: real Debian Chromium (playwright-core), real provider, one browser per file.
// Most of a file's time is spent waiting (on the page's own timers, the provider, Chromium), so two files run
// at once even on two cores; every file has its own ports, temp folders, profile and D-Bus. Files of one worker
// share its module cache (isolate: false): the server's modules and PGlite's WebAssembly are loaded once per
// worker, not once per file; no e2e file mocks a module or changes a global. PUSHKIT_E2E_WORKERS overrides the
// worker count (1 runs the files one after another).
const workers = Number(process.env.PUSHKIT_E2E_WORKERS) || 2;

export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    isolate: false,
    fileParallelism: workers > 1,
    maxWorkers: workers,
    // A poll returns as soon as it holds; the 1 s default was too short for a page under two files' load.
    expect: { poll: { timeout: 10_000 } },
  },
});
