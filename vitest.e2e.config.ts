import { defineConfig } from 'vitest/config';
import { longestFirst } from './tests/support/longest-first.ts';

// Browser end-to-end tests: real Debian Chromium (playwright-core), real provider; a worker's files hand its
// Chromium on where it can be cleared (tests/support/browser.ts, borrowChromium). Most of a file's time is spent
// waiting (on the page's own timers, the provider, Chromium), so two files run at once even on two cores; every file
// has its own ports (so origins), temp folders and D-Bus. A third did not pay:
// in a clean-clone run on the 2-core machine the files' summed time rose from 1,118 s to 1,763 s and the stage
// from 565 s to 596 s (Chromium's processes, not counted by a file's own CPU time, fill the cores). Files of one
// worker share its module cache (isolate: false): the server's modules and PGlite's WebAssembly are loaded once per
// worker, not once per file; no e2e file mocks a module or changes a global. PUSHKIT_E2E_WORKERS overrides the
// worker count (1 runs the files one after another).
const workers = Number(process.env.PUSHKIT_E2E_WORKERS) || 2;

// The longest files (about 10 to 27 s each in a quiet run), longest first (tests/support/longest-first.ts): Vitest's
// order by file size on a fresh clone put shop and spec-bundle-state near the end.
const LONGEST_FIRST = [
  'dashboard-compose',
  'spec-bundle-state',
  'hostile-pages',
  // not beside dashboard-compose at the start: each spawns `push-kit serve`
  'dashboard',
  'child-window-screens',
  'child-window-http-path',
  'prompts',
  'consent-and-opt-in',
  'dashboard-campaigns',
  'hostile-provider',
  'safari-ios',
  'shop',
  'dashboard-audiences',
  'spec-bundle-prompt',
  'runtime-lifecycle',
  'spec-bundle-timing',
  'spec-sync',
];

export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.test.ts'],
    // a test of a dozen page views took 65 s with three files at once on a machine others loaded (20): as the
    // integration tests, two minutes; a passing test takes no longer for it
    testTimeout: 120_000,
    // a file's beforeAll builds its sites, starts the provider and Chromium: at load 30 that passed 60 s
    hookTimeout: 120_000,
    pool: 'forks',
    isolate: false,
    fileParallelism: workers > 1,
    maxWorkers: workers,
    // A poll returns as soon as it holds; the 1 s default was too short for a page under two files' load.
    expect: { poll: { timeout: 10_000 } },
    sequence: { sequencer: longestFirst(LONGEST_FIRST) },
    // every profile of the run in one folder, removed at the end (kept browsers end with their worker)
    globalSetup: ['tests/support/e2e-profiles.ts'],
  },
});
