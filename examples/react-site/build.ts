// Builds the React example into `outDir` (index.html and app.js, served at /react/ beside the site's bundle:
// the page must share the origin of push.js and sw.js). `push-kit/react` resolves to this repository's
// react/index.ts; in your own app it is the installed package's.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HERE = fileURLToPath(new URL('.', import.meta.url));

export async function buildReactExample(outDir: string): Promise<void> {
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [join(HERE, 'main.tsx')],
    outfile: join(outDir, 'app.js'),
    bundle: true,
    format: 'esm',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"development"' },
    alias: { 'push-kit/react': join(HERE, '..', '..', 'react', 'index.ts') },
    // esbuild drops the module's 'use client' when bundling, as it says in a warning; a bundle needs none
    logLevel: 'error',
  });
  await copyFile(join(HERE, 'index.html'), join(outDir, 'index.html'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildReactExample(process.argv[2] ?? 'dist/react-site');
