// esbuild bundles of push.js, sw.js, sw-firefox.js, push-kit-sw.js and the child window's script, with the generated site
// modules resolved in memory and every feature flag defined as a literal so unused code is dropped.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import type { SiteFeatures } from '../runtime/site-module.ts';
import { constantDefines, DEFAULT_CONSTANTS, featureDefines, type SiteConstants } from '../compiler/features.ts';
import { emitError } from './errors.ts';
import { BOUNDARY_MANGLE_CACHE, MANGLED_PROPS, RESERVED_PROPS } from './mangle-props.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Where the browser sources are: the repository itself, or the installed package's `browser/` folder
 * (scripts/build-package.ts), kept apart from the compiled `.d.ts` files so that a consumer's TypeScript, which
 * prefers `x.ts` over `x.d.ts`, never type-checks them.
 */
const BROWSER_ROOT = existsSync(join(ROOT, 'browser', 'runtime')) ? join(ROOT, 'browser') : ROOT;
const SITE_NAMESPACE = 'pushkit-generated';

export interface GeneratedModules {
  'pushkit:site': string;
  /**
   * `pushkit:core-site`, the site module push.js's core imports (runtime/push.ts): without what only the chunks read
   * (prompt markup, shop segments, the sync server). Without it, the core gets `pushkit:site`.
   */
  'pushkit:core-site'?: string;
  'pushkit:worker-site': string;
}

/** The chunks of push.js: file-name stem and entry. The core finds each under `PK_CHUNKS.<name>`. */
export const CHUNK_ENTRIES = { lifecycle: 'runtime/chunks/lifecycle.ts' } as const;
export type ChunkName = keyof typeof CHUNK_ENTRIES;

/** What the build writes in place of `PK_CHUNKS.<name>` first; the hashed file name replaces it once known. */
const chunkPlaceholder = (name: string): string => `pushkit-chunk:${name}`;
const chunkDefines = Object.fromEntries(
  Object.keys(CHUNK_ENTRIES).map((name) => [`PK_CHUNKS.${name}`, JSON.stringify(chunkPlaceholder(name))]),
);

/**
 * The folder the site's config says push.js is served from (cdnUrl, or the site's root, as the snippet loads it): where
 * the core loads its chunks from when it cannot read its own URL (runtime/chunk-loader.ts).
 */
export const pushJsFolder = (cdnUrl: string | undefined): string => (cdnUrl ? `${cdnUrl.replace(/\/+$/, '')}/` : '/');

/** A chunk's file name: its content's hash in it, so a cached old push.js never loads a newer chunk, nor the reverse. */
export const chunkFileName = (name: string, code: string): string =>
  `push.${name}.${createHash('sha256').update(code).digest('hex').slice(0, 10)}.js`;

/** The name of a chunk file beside push.js (chunkFileName): what a server of the site's folder serves beside it. */
export const CHUNK_FILE_PATTERN = /^push\.[a-z]+\.[0-9a-f]{10}\.js$/;

/**
 * V8's explicit compile hint, the first line of push.js and of each chunk: every function of the file is compiled
 * eagerly while the script streams in, on a background thread, instead of lazily on the page's main thread at its
 * first call (most of the core runs on every view, so little is compiled for nothing). Browsers without the hint
 * read a comment. Kept on both files after a same-run A/B (page-cost --compare, 15 rounds, load 8-24): without it
 * the core costs 3.5 ms more main-thread CPU on a first visit and 3.3 ms in sync; the chunk's own cost is the same
 * either way on a first visit, and with it the prompt's code is compiled before the trigger calls it. The
 * `v8.produceCache` of the bench's traces is there without the hint too.
 */
export const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n';

/** Writes the chunks' file names into push.js's core. */
export function linkChunks(core: string, chunks: Record<string, string>): string {
  let linked = core;
  for (const [name, file] of Object.entries(chunks))
    linked = linked.split(JSON.stringify(chunkPlaceholder(name))).join(JSON.stringify(file));
  return linked;
}

export interface Bundle {
  code: string;
  metafile: Metafile;
}

function generatedModulesPlugin(modules: GeneratedModules): Plugin {
  return {
    name: 'pushkit-generated-modules',
    setup(builder) {
      builder.onResolve({ filter: /^pushkit:(site|core-site|worker-site)$/ }, (args) => ({
        path: args.path === 'pushkit:core-site' && !modules['pushkit:core-site'] ? 'pushkit:site' : args.path,
        namespace: SITE_NAMESPACE,
      }));
      builder.onLoad({ filter: /.*/, namespace: SITE_NAMESPACE }, (args) => ({
        contents: modules[args.path as keyof GeneratedModules],
        loader: 'js',
      }));
    },
  };
}

/** The settings of every browser bundle: a minified IIFE with the site's modules, feature flags and constants. */
function browserBundleOptions(modules: GeneratedModules, features: SiteFeatures, constants: SiteConstants, folder: string) {
  return {
    bundle: true,
    write: false,
    format: 'iife',
    minify: true,
    target: 'es2017',
    platform: 'browser',
    legalComments: 'none',
    mangleProps: MANGLED_PROPS,
    reserveProps: RESERVED_PROPS,
    mangleCache: BOUNDARY_MANGLE_CACHE,
    define: { ...featureDefines(features), ...constantDefines(constants), ...chunkDefines, PK_CHUNK_FOLDER: JSON.stringify(folder) },
    plugins: [generatedModulesPlugin(modules)],
    metafile: true,
    logLevel: 'silent',
  } satisfies BuildOptions;
}

export async function bundleEntry(
  entry: string,
  modules: GeneratedModules,
  features: SiteFeatures,
  constants: SiteConstants = DEFAULT_CONSTANTS,
  folder = '/',
): Promise<Bundle> {
  const result = await build({ ...browserBundleOptions(modules, features, constants, folder), entryPoints: [join(BROWSER_ROOT, entry)] });
  const output = result.outputFiles[0];
  if (!output) throw emitError('E_BUNDLE_NO_OUTPUT', { entry });
  return { code: output.text, metafile: result.metafile };
}

export interface SiteBundles {
  /** push.js, the core, with the chunks' file names written in. */
  push: Bundle;
  /** The chunks beside push.js, by name: the file name (content-hashed) and the bundle. */
  chunks: Record<ChunkName, { file: string } & Bundle>;
  sw: Bundle;
  swFirefox: Bundle;
  /** push-kit-sw.js: the push handlers alone, for a site's own worker to importScripts. */
  swImport: Bundle;
  childWindow: Bundle;
}

const SITE_ENTRIES = {
  push: 'runtime/push.ts',
  ...Object.fromEntries(Object.entries(CHUNK_ENTRIES).map(([name, entry]) => [`chunk-${name}`, entry])),
  sw: 'worker/sw.ts',
  swFirefox: 'worker/sw-firefox.ts',
  swImport: 'worker/push-kit-sw.ts',
  childWindow: 'runtime/child-window.ts',
} as Record<Exclude<keyof SiteBundles, 'chunks'> | `chunk-${ChunkName}`, string>;

/**
 * Every bundle of a site in one esbuild run: the five entries share the parsing and linking of the runtime
 * modules they have in common (the same defines apply to all), which makes a build about twice as fast as
 * five separate runs. Each output is still its own self-contained IIFE (no code splitting): push.js's chunks are
 * loaded by a script element, which needs neither CORS nor a CSP beyond push.js's own (chunk-loader.ts).
 */
export async function bundleSite(
  modules: GeneratedModules,
  features: SiteFeatures,
  constants: SiteConstants = DEFAULT_CONSTANTS,
  /** pushJsFolder of the site's config. */
  folder = '/',
): Promise<SiteBundles> {
  const result = await build({
    entryPoints: Object.fromEntries(Object.entries(SITE_ENTRIES).map(([name, entry]) => [name, join(BROWSER_ROOT, entry)])),
    outdir: '/pushkit-out',
    ...browserBundleOptions(modules, features, constants, folder),
  });
  const bundles: Record<string, Bundle> = {};
  for (const name of Object.keys(SITE_ENTRIES) as Array<keyof typeof SITE_ENTRIES>) {
    const outPath = `/pushkit-out/${name}.js`;
    const output = result.outputFiles.find((file) => file.path === outPath);
    if (!output) throw emitError('E_BUNDLE_NO_OUTPUT', { entry: SITE_ENTRIES[name] });
    const metaKey = Object.keys(result.metafile.outputs).find((key) => outPath.endsWith(`/${key.replace(/^.*\//, '')}`));
    const outputs = metaKey ? { [metaKey]: result.metafile.outputs[metaKey]! } : {};
    bundles[name] = { code: output.text, metafile: { inputs: result.metafile.inputs, outputs } };
  }
  const chunks = Object.fromEntries(
    Object.keys(CHUNK_ENTRIES).map((name) => {
      const bundle = bundles[`chunk-${name}`]!;
      const code = COMPILE_HINT + bundle.code;
      return [name, { file: chunkFileName(name, code), ...bundle, code }];
    }),
  ) as SiteBundles['chunks'];
  const files = Object.fromEntries(Object.entries(chunks).map(([name, chunk]) => [name, chunk.file]));
  return {
    push: { ...bundles.push!, code: COMPILE_HINT + linkChunks(bundles.push!.code, files) },
    chunks,
    sw: bundles.sw!,
    swFirefox: bundles.swFirefox!,
    swImport: bundles.swImport!,
    childWindow: bundles.childWindow!,
  };
}
