// The owner dashboard (dashboard/, a React app). The published package ships it prebuilt (`npm run build`
// writes `dashboard/dist` beside the compiled server), so an installed push-kit needs no Vite. In a checkout
// there is no prebuilt copy: it is built with Vite's JS API when the provider first needs it, into a cache
// folder named after a hash of its sources, so a fresh clone serves it after `npm ci` with no build step and an
// edited source is rebuilt on the next start. Several processes may build at once; each builds into its own
// temporary folder and the first rename wins. A build killed mid-way leaves its temporary folder behind: the next
// build removes it once its process is gone (or it is older than any build takes), never a live build's.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dashboardCacheDir, STATE_DIR } from '../state-paths.ts';
import { processAlive } from '../process-alive.ts';
import { makePrivate } from '../db/private-files.ts';
import { HELP_PAGES, writeHelpPages } from './help-pages.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DASHBOARD_SOURCE_DIR = join(PACKAGE_ROOT, 'dashboard');
/** The wires' types and constants (contract/): the only code the dashboard imports from outside its folder. */
const CONTRACT_SOURCE_DIR = join(PACKAGE_ROOT, 'contract');
/** The guides the dashboard serves as help pages (help-pages.ts). */
const DOCS_SOURCE_DIR = join(PACKAGE_ROOT, 'docs');
const DEFAULT_CACHE_DIR = dashboardCacheDir(join(PACKAGE_ROOT, STATE_DIR));
/** Where the package build puts the app (`dist-pkg/dashboard/dist` when read from the compiled server). */
export const PREBUILT_DASHBOARD_DIR = join(PACKAGE_ROOT, 'dashboard', 'dist');

export interface DashboardFiles {
  /** Folder of the built app: index.html and assets/. */
  dir: string;
  hash: string;
  /** Milliseconds the build took; 0 when the cache was current. */
  buildMs: number;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files.sort();
}

/** A hash of everything the build reads: the app's sources, the contract, the help guides, and the versions of Vite, React and marked. */
export async function dashboardSourceHash(): Promise<string> {
  const require = createRequire(import.meta.url);
  const hash = createHash('sha256');
  for (const pkg of ['vite/package.json', 'react/package.json', 'react-dom/package.json', 'marked/package.json']) {
    try {
      hash.update(`${pkg}@${(require(pkg) as { version: string }).version}\n`);
    } catch {
      hash.update(`${pkg}@missing\n`);
    }
  }
  const guides = HELP_PAGES.map((name) => join(DOCS_SOURCE_DIR, `${name}.md`));
  for (const file of [...(await sourceFiles(DASHBOARD_SOURCE_DIR)), ...(await sourceFiles(CONTRACT_SOURCE_DIR)), ...guides]) {
    hash.update(`${relative(PACKAGE_ROOT, file)}\n`);
    hash.update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/** A build's temporary folder, `.tmp-<pid>-<hex>`: the process building into it. */
const TEMPORARY = /^\.tmp-(\d+)-/;
/** Older than any build takes: a temporary folder this old is a leftover even when its pid is alive again (reused). */
const STALE_BUILD_MS = 60 * 60_000;

/** Whether a cache entry may go: an old build's folder, or a temporary one no live build is writing. */
async function leftOver(cacheDir: string, entry: string, hash: string): Promise<boolean> {
  if (entry === hash) return false;
  if (!entry.startsWith('.tmp-')) return true;
  const pid = Number(TEMPORARY.exec(entry)?.[1] ?? 0);
  if (pid === 0 || !processAlive(pid)) return true;
  const changed = await stat(join(cacheDir, entry)).then(
    (found) => found.mtimeMs,
    // renamed into place or removed by its build meanwhile
    () => Date.now(),
  );
  return Date.now() - changed > STALE_BUILD_MS;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

export async function viteBuild(outDir: string): Promise<void> {
  let vite: typeof import('vite');
  try {
    vite = await import('vite');
  } catch (error) {
    throw new Error(`Vite is not installed (npm ci installs it with the dev dependencies): ${(error as Error).message}`, { cause: error });
  }
  await vite.build({
    root: DASHBOARD_SOURCE_DIR,
    base: '/dashboard/',
    configFile: false,
    envFile: false,
    logLevel: 'silent',
    clearScreen: false,
    // Vite 8 compiles TSX with Oxc; React's automatic runtime needs no `import React`.
    oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
    build: { outDir, emptyOutDir: true, sourcemap: false, reportCompressedSize: false, modulePreload: { polyfill: false } },
  });
  await writeHelpPages(DOCS_SOURCE_DIR, outDir);
}

/** The built dashboard, building it first when the cache holds no build of the current sources. */
export async function buildDashboard(cacheDir = process.env.PUSHKIT_DASHBOARD_CACHE ?? DEFAULT_CACHE_DIR): Promise<DashboardFiles> {
  const hash = await dashboardSourceHash();
  const dir = join(cacheDir, hash);
  if (await exists(join(dir, 'index.html'))) return { dir, hash, buildMs: 0 };
  // under .push-kit/, whose folders are the user's alone (DESIGN: 0700)
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const started = Date.now();
  const temporary = join(cacheDir, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  // made 0700 before Vite writes into it (Vite empties an existing outDir, it does not replace it), so nobody else
  // can enter it while the build runs, whatever the umask
  await mkdir(temporary, { mode: 0o700 });
  try {
    await viteBuild(temporary);
    // Vite writes with the umask (0755/0644): narrowed like the rest of .push-kit before it takes its place
    await makePrivate(temporary);
    await rename(temporary, dir).catch(async (error: NodeJS.ErrnoException) => {
      // another process finished the same build first: keep theirs
      if (!(await exists(join(dir, 'index.html')))) throw error;
    });
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
  for (const entry of await readdir(cacheDir)) {
    if (await leftOver(cacheDir, entry, hash)) await rm(join(cacheDir, entry), { recursive: true, force: true }).catch(() => undefined);
  }
  return { dir, hash, buildMs: Date.now() - started };
}

async function prebuiltOrBuild(): Promise<DashboardFiles> {
  if (await exists(join(PREBUILT_DASHBOARD_DIR, 'index.html'))) return { dir: PREBUILT_DASHBOARD_DIR, hash: 'prebuilt', buildMs: 0 };
  return buildDashboard();
}

let pending: Promise<DashboardFiles> | null = null;

/** One build per process: every caller shares it; a failed build is tried again by the next caller. */
export function dashboardFiles(): Promise<DashboardFiles> {
  pending ??= prebuiltOrBuild().catch((error: unknown) => {
    pending = null;
    throw error;
  });
  return pending;
}

/** Starts the build in the background so the first visit does not wait for it; says when it built or failed. */
export function prepareDashboard(log: (line: string) => void): void {
  dashboardFiles().then(
    (files) => {
      if (files.buildMs > 0) log(`owner dashboard built in ${(files.buildMs / 1000).toFixed(1)} s`);
    },
    (error: unknown) => log(`owner dashboard: cannot build it: ${(error as Error).message}`),
  );
}
