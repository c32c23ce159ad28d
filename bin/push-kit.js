#!/usr/bin/env node
// The CLI runs from its TypeScript sources through tsx, so a fresh clone works right after `npm ci`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/index.ts');
process.exitCode = await main(process.argv);
