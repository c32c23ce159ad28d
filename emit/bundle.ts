// esbuild bundles of push.js, sw.js, sw-firefox.js, push-kit-sw.js and the child window's script, with the generated site
// modules resolved in memory and every feature flag defined as a literal so unused code is dropped.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import type { SiteFeatures } from '../runtime/site-module.ts';
import { constantDefines, DEFAULT_CONSTANTS, featureDefines, type SiteConstants } from '../compiler/features.ts';
import { emitError } from './errors.ts';
import { MANGLED_PROPS, RESERVED_PROPS } from './mangle-props.ts';

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
  'pushkit:worker-site': string;
}

export interface Bundle {
  code: string;
  metafile: Metafile;
}

function generatedModulesPlugin(modules: GeneratedModules): Plugin {
  return {
    name: 'pushkit-generated-modules',
    setup(builder) {
      builder.onResolve({ filter: /^pushkit:(site|worker-site)$/ }, (args) => ({ path: args.path, namespace: SITE_NAMESPACE }));
      builder.onLoad({ filter: /.*/, namespace: SITE_NAMESPACE }, (args) => ({
        contents: modules[args.path as keyof GeneratedModules],
        loader: 'js',
      }));
    },
  };
}

/** The settings of every browser bundle: a minified IIFE with the site's modules, feature flags and constants. */
function browserBundleOptions(modules: GeneratedModules, features: SiteFeatures, constants: SiteConstants) {
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
    define: { ...featureDefines(features), ...constantDefines(constants) },
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
): Promise<Bundle> {
  const result = await build({ ...browserBundleOptions(modules, features, constants), entryPoints: [join(BROWSER_ROOT, entry)] });
  const output = result.outputFiles[0];
  if (!output) throw emitError('E_BUNDLE_NO_OUTPUT', { entry });
  return { code: output.text, metafile: result.metafile };
}

export interface SiteBundles {
  push: Bundle;
  sw: Bundle;
  swFirefox: Bundle;
  /** push-kit-sw.js: the push handlers alone, for a site's own worker to importScripts. */
  swImport: Bundle;
  childWindow: Bundle;
}

const SITE_ENTRIES = {
  push: 'runtime/push.ts',
  sw: 'worker/sw.ts',
  swFirefox: 'worker/sw-firefox.ts',
  swImport: 'worker/push-kit-sw.ts',
  childWindow: 'runtime/child-window.ts',
} as const satisfies Record<keyof SiteBundles, string>;

/**
 * Every bundle of a site in one esbuild run: the five entries share the parsing and linking of the runtime
 * modules they have in common (the same defines apply to all), which makes a build about twice as fast as
 * five separate runs. Each output is still its own self-contained IIFE (no code splitting).
 */
export async function bundleSite(
  modules: GeneratedModules,
  features: SiteFeatures,
  constants: SiteConstants = DEFAULT_CONSTANTS,
): Promise<SiteBundles> {
  const result = await build({
    entryPoints: Object.fromEntries(Object.entries(SITE_ENTRIES).map(([name, entry]) => [name, join(BROWSER_ROOT, entry)])),
    outdir: '/pushkit-out',
    ...browserBundleOptions(modules, features, constants),
  });
  const bundles: Partial<SiteBundles> = {};
  for (const name of Object.keys(SITE_ENTRIES) as Array<keyof SiteBundles>) {
    const outPath = `/pushkit-out/${name}.js`;
    const output = result.outputFiles.find((file) => file.path === outPath);
    if (!output) throw emitError('E_BUNDLE_NO_OUTPUT', { entry: SITE_ENTRIES[name] });
    const metaKey = Object.keys(result.metafile.outputs).find((key) => outPath.endsWith(`/${key.replace(/^.*\//, '')}`));
    const outputs = metaKey ? { [metaKey]: result.metafile.outputs[metaKey]! } : {};
    bundles[name] = { code: output.text, metafile: { inputs: result.metafile.inputs, outputs } };
  }
  return bundles as SiteBundles;
}
