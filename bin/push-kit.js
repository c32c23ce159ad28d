#!/usr/bin/env node
// The `push-kit` program. The published package runs its compiled JavaScript (dist-pkg/, built by
// `npm run build` before packing); a checkout, which has the TypeScript sources, runs those through tsx, so a
// fresh clone works right after `npm ci` and an edit needs no build. PUSHKIT_COMPILED_CLI=1 runs the compiled
// package in a checkout too (the test suite builds it once and runs every spawned command on it, the shipped path).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// React (the prompt markup rendered at build time, the init wizard's Ink) runs its production build unless
// told otherwise: the development build renders about three times slower and only adds checks for React's own developers.
process.env.NODE_ENV ??= 'production';
const sources = new URL('../cli/index.ts', import.meta.url);
let cli;
if (existsSync(sources) && process.env.PUSHKIT_COMPILED_CLI !== '1') {
  const { register } = await import('tsx/esm/api');
  // the repository's tsconfig (its jsx setting), not the one of the folder the command runs in
  register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
  cli = await import(sources.href);
} else {
  cli = await import('../dist-pkg/cli/index.js');
}
process.exitCode = await cli.main(process.argv);
