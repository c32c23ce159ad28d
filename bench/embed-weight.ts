// Figure 1 of the benchmarks: what a visitor downloads. push.js (gzip and brotli) for the calligraphy site, a
// minimal site and an everything-on site, against a minimal Firebase Cloud Messaging web client
// (@firebase/app + @firebase/messaging: initialize, get a token, handle a message) bundled and minified by
// esbuild in the same run. push.js is the core every view downloads; its lifecycle chunk beside it
// (push.lifecycle.<hash>.js) only views that need it: both are weighed, and the two together (a prompt view).
// Goals (issue 34): the core at most 4 KB gzip for calligraphy and 5 KB everything-on.
// --breakdown: each core's minified bytes by module (esbuild's metafile) and the gzip bytes each feature's code costs it.
//   npx tsx bench/embed-weight.ts [--breakdown]
import { benchArgs } from './bench-args.ts';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { loadConfig } from '../config/load-config.ts';
import { FEATURE_NAMES, siteFeatures } from '../compiler/features.ts';
import { generateSiteModule, generateWorkerSiteModule } from '../compiler/site-module.ts';
import { bundleEntry } from '../emit/bundle.ts';
import { buildSite } from '../emit/build-site.ts';
import { renderPrompts } from '../emit/render-prompts.tsx';
import { bundleFirebaseClient, FIREBASE_SUBSCRIBING_CLIENT } from './firebase-client.ts';

const values = benchArgs('npx tsx bench/embed-weight.ts [--breakdown]', { breakdown: { type: 'boolean', default: false } });

const REPO = fileURLToPath(new URL('../', import.meta.url));
const SITES = [
  ['calligraphy', 'site-configs/calligraphy.json'],
  ['minimal', 'tests/fixtures/configs/minimal.json'],
  ['everything-on', 'tests/fixtures/configs/everything.json'],
] as const;

interface Weight {
  name: string;
  raw: number;
  gzip: number;
  brotli: number;
}

function weigh(name: string, code: Uint8Array): Weight {
  return {
    name,
    raw: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

async function firebaseWeight(): Promise<Weight> {
  return weigh('Firebase messaging (minimal client)', await bundleFirebaseClient(FIREBASE_SUBSCRIBING_CLIENT));
}

const out = await mkdtemp(join(tmpdir(), 'push-kit-bench-weight-'));
const weights: Weight[] = [];
const extras: Weight[] = [];
for (const [name, file] of SITES) {
  const built = await buildSite(join(REPO, file), out);
  if (!built.ok) throw new Error(`${file}: ${built.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}`);
  // Weighed here like Firebase's client (brotli at quality 11), not taken from report.json (quality 5).
  const core = await readFile(join(built.dir, 'push.js'));
  const chunkFile = built.files.find((entry) => /^push\.lifecycle\.[0-9a-f]{10}\.js$/.test(entry.path))!.path;
  const chunk = await readFile(join(built.dir, chunkFile));
  weights.push(weigh(`push-kit push.js, ${name}`, core));
  extras.push(weigh(`${name}: lifecycle chunk`, chunk), weigh(`${name}: push.js + chunk`, Buffer.concat([core, chunk])));
}
const firebase = await firebaseWeight();
await rm(out, { recursive: true, force: true });

console.log('embed weight'.padEnd(40), 'raw B'.padStart(8), 'gzip B'.padStart(8), 'brotli B'.padStart(9), 'gzip vs Firebase'.padStart(17));
for (const weight of [...weights, ...extras, firebase]) {
  console.log(
    weight.name.padEnd(40),
    String(weight.raw).padStart(8),
    String(weight.gzip).padStart(8),
    String(weight.brotli).padStart(9),
    `${(weight.gzip / firebase.gzip).toFixed(3)}x`.padStart(17),
  );
}
const everything = weights.find((weight) => weight.name.endsWith('everything-on'))!;
const minimal = weights.find((weight) => weight.name.endsWith('minimal'))!;
console.log(`\nminimal is ${((1 - minimal.gzip / everything.gzip) * 100).toFixed(1)}% smaller than everything-on (goal: at least 30%)`);
console.log(`everything-on is ${(everything.gzip / firebase.gzip).toFixed(3)}x Firebase's minimal client (goal: under 0.5x)`);

/** Where the bytes of a site's push.js go: minified bytes each module leaves in the bundle (esbuild metafile). */
async function printBreakdown(label: string, file: string): Promise<void> {
  const loaded = await loadConfig(join(REPO, file));
  if (!loaded.ok) throw new Error(`${file}: ${loaded.problems.map((problem) => problem.message).join('; ')}`);
  const features = siteFeatures(loaded.config, loaded.compiled);
  const prompts = await renderPrompts(loaded.config, features);
  const generated = {
    'pushkit:site': generateSiteModule(loaded.config, loaded.compiled, prompts),
    'pushkit:core-site': generateSiteModule(loaded.config, loaded.compiled, prompts, true),
    'pushkit:worker-site': generateWorkerSiteModule(loaded.config),
  };
  const bundle = await bundleEntry('runtime/push.ts', generated, features);
  const output = Object.values(bundle.metafile.outputs)[0]!;
  const modules = Object.entries(output.inputs)
    .map(([path, input]) => ({ path: path.replace(/^pushkit-generated:/, '(generated) '), bytes: input.bytesInOutput }))
    .filter((module) => module.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  const total = modules.reduce((sum, module) => sum + module.bytes, 0);
  console.log(`\npush.js (the core), ${label}: minified bytes by module (${total} B in modules, ${bundle.code.length} B with the wrapper)`);
  for (const module of modules) {
    console.log(
      `  ${module.path.padEnd(48)} ${String(module.bytes).padStart(6)}  ${((module.bytes / total) * 100).toFixed(1).padStart(5)}%`,
    );
  }
  // What each feature's code costs the core in gzip: the core built with that one build flag off, against the site's
  // (the site module unchanged: its data is the config's). Gzip does not add up per module; removal is what a change saves.
  const gzipOf = (code: string): number => gzipSync(code, { level: 9 }).length;
  const base = gzipOf(bundle.code);
  const costs: Array<[string, number, number]> = [];
  for (const name of FEATURE_NAMES) {
    if (!features[name]) continue;
    const without = await bundleEntry('runtime/push.ts', generated, { ...features, [name]: false });
    costs.push([name, bundle.code.length - without.code.length, base - gzipOf(without.code)]);
  }
  if (costs.length) console.log(`  the code of each feature the site uses (minified B, gzip B the core loses without it):`);
  for (const [name, raw, gzip] of costs.sort((a, b) => b[2] - a[2]))
    console.log(`    ${name.padEnd(46)} ${String(raw).padStart(6)} ${String(gzip).padStart(6)}`);
}

if (values.breakdown) {
  for (const [name, file] of SITES) await printBreakdown(name, file);
}
