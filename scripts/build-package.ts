// `npm run build` (and `prepack`): the published package as plain JavaScript. Compiles the Node code (every
// folder tsconfig.build.json names) to `dist-pkg/` with `.d.ts` files, copies beside it what is read at run
// time as it is (templates, styles, and the browser sources esbuild bundles at `push-kit build` time), and
// builds the owner dashboard's static files. An installed push-kit then runs without tsx, TypeScript or Vite.
import { execFileSync } from 'node:child_process';
import { cp, readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { viteBuild } from '../server/dashboard/dashboard-build.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PACKAGE_OUT_DIR = join(ROOT, 'dist-pkg');

/**
 * Folders whose TypeScript sources ship as they are, under `browser/`: esbuild bundles them into each site's
 * browser files (emit/bundle.ts). Beside the compiled `.d.ts` files a consumer's TypeScript would read them.
 */
const BROWSER_SOURCE_DIRS = ['runtime', 'worker', 'contract'];
/** Folders of the compiled code whose other files (templates, styles) are read at run time. */
const ASSET_DIRS = ['templates', 'config', 'compiler', 'emit', 'server', 'cli'];

const isTypeScript = (file: string) => ['.ts', '.tsx'].includes(extname(file));
const isTest = (file: string) => /\.test\.tsx?$/.test(file);

/** Copies the files of `from` that `keep` accepts to the same relative paths under `to`. */
async function copyFiles(from: string, to: string, keep: (file: string) => boolean): Promise<void> {
  let entries;
  try {
    entries = await readdir(from, { withFileTypes: true });
  } catch {
    return; // a folder this checkout does not have
  }
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const source = join(from, entry.name);
    if (entry.isDirectory()) await copyFiles(source, join(to, entry.name), keep);
    else if (entry.isFile() && keep(source)) await cp(source, join(to, entry.name));
  }
}

export async function buildPackage(log: (line: string) => void = console.log): Promise<void> {
  await rm(PACKAGE_OUT_DIR, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  log('compiling TypeScript to dist-pkg/');
  // emit only: `npm run typecheck` checks these sources (tsconfig.json covers them); checking them again here took
  // a quarter of the build's time
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck'], { stdio: 'inherit' });
  for (const dir of BROWSER_SOURCE_DIRS) {
    await copyFiles(join(ROOT, dir), join(PACKAGE_OUT_DIR, 'browser', dir), (file) => extname(file) === '.ts' && !isTest(file));
  }
  for (const dir of ASSET_DIRS) {
    await copyFiles(join(ROOT, dir), join(PACKAGE_OUT_DIR, dir), (file) => !isTypeScript(file));
  }
  log('building the owner dashboard into dist-pkg/dashboard/dist');
  await viteBuild(join(PACKAGE_OUT_DIR, 'dashboard', 'dist'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildPackage();
