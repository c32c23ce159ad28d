import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { allFeatures, constantDefines, DEFAULT_CONSTANTS, featureDefines } from './compiler/features.ts';

// The integration files that take longest (13 to 56 s each in a clean-clone run, 19:46 UTC, two workers),
// longest first. The two workers take files from one queue; on a fresh clone (as in CI) Vitest's order is by file
// size, which left send-command (52 s) to start a quarter of the way in and the stage to end on whichever long file
// came last: started first, the short files fill in around them. A file not named here keeps Vitest's order, after
// these (unit files too); a renamed file only loses its place.
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

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification): number => {
      const place = LONGEST_FIRST.indexOf(basename(file.moduleId, '.test.ts'));
      return place === -1 ? LONGEST_FIRST.length : place;
    };
    // a stable sort: the files not named keep Vitest's order among themselves
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

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
    sequence: { sequencer: LongestFirst },
  },
});
