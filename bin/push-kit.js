#!/usr/bin/env node
// The CLI runs from its TypeScript sources through tsx, so a fresh clone works right after `npm ci`.
import { register } from 'tsx/esm/api';

// React (the prompt markup rendered at build time, the init wizard's Ink) runs its production build unless
// told otherwise: the development build renders about three times slower and only adds checks for React's own developers.
process.env.NODE_ENV ??= 'production';
register();
const { main } = await import('../cli/index.ts');
process.exitCode = await main(process.argv);
