// Figure 3 of the benchmarks: `push-kit build` on 200 generated site configs with varied features, against
// the floor: a bare esbuild bundle of the same runtime entry for each site (its site module generated
// beforehand, no templates, no prompt rendering, no sizes, no writing), measured in the same run.
// Goals: at least 50 sites per second on 2 cores, within 2x of the floor.
//   npx tsx bench/build-throughput.ts [--sites 200]
import { benchArgs, wholeNumber } from './bench-args.ts';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../config/load-config.ts';
import { siteFeatures } from '../compiler/features.ts';
import { generateSiteModule, generateWorkerSiteModule } from '../compiler/site-module.ts';
import { renderPrompts } from '../emit/render-prompts.tsx';
import { bundleEntry } from '../emit/bundle.ts';

const USAGE = 'npx tsx bench/build-throughput.ts [--sites 200]';
const values = benchArgs(USAGE, { sites: { type: 'string', default: '200' } });
const COUNT = wholeNumber('sites', values.sites, USAGE);
const KEY = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';

/** Site i turns features on by the bits of i, so the 200 sites cover every combination several times. */
function generatedConfig(index: number): Record<string, unknown> {
  const bit = (n: number) => (index >> n) & 1;
  const events = ['delay', bit(0) && 'scroll', bit(1) && 'leaveIntent', bit(2) && 'click', bit(5) && 'interval'].filter(Boolean);
  return {
    hash: `bench-site-${String(index).padStart(4, '0')}`,
    companyName: `Bench Site ${index}`,
    origin: bit(3) ? `http://site${index}.bench.example` : `https://site${index}.bench.example`,
    serverSyncUrl: 'https://push.bench.example',
    vapidPublicKey: KEY,
    includeUrls: bit(4) ? ['/blog/*', `contains:promo${index}`] : ['*'],
    excludeUrls: bit(4) ? ['/admin/*'] : [],
    pcBranding: bit(6),
    isShopifyConnectedAccount: bit(7) === 1,
    pageClickTrackingConcent: bit(1) === 1,
    segmentations: bit(2) ? [{ sid: index + 1, ss: `visitCount > ${index % 7}` }] : [],
    clickSegmentations: bit(5) ? [{ sid: 'clicked', selector: '.cta' }] : [],
    style: { isMobileEnabled: bit(0) === 1 },
    triggers: {
      when: events.join(' or '),
      delaySeconds: 3 + (index % 5),
      ...(bit(0) ? { scroll: { percent: 40 } } : {}),
      ...(bit(2) ? { clickSelector: '.notify' } : {}),
      ...(bit(5) ? { intervalSeconds: 10 } : {}),
    },
  };
}

const work = await mkdtemp(join(tmpdir(), 'push-kit-bench-build-'));
const files: string[] = [];
for (let index = 0; index < COUNT; index += 1) {
  const file = join(work, `site-${index}.json`);
  await writeFile(file, JSON.stringify(generatedConfig(index)));
  files.push(file);
}

// The floor's inputs are prepared outside its timing: it measures esbuild alone.
const floorInputs = [];
for (const file of files) {
  const loaded = await loadConfig(file);
  if (!loaded.ok) throw new Error(`${file}: ${JSON.stringify(loaded.problems)}`);
  const features = siteFeatures(loaded.config, loaded.compiled);
  const prompts = await renderPrompts(loaded.config, features);
  floorInputs.push({
    features,
    modules: {
      'pushkit:site': generateSiteModule(loaded.config, loaded.compiled, prompts),
      'pushkit:worker-site': generateWorkerSiteModule(loaded.config),
    },
  });
}

// Warm-up: esbuild's service and the module caches.
await bundleEntry('runtime/push.ts', floorInputs[0]!.modules, floorInputs[0]!.features);

let start = performance.now();
for (const input of floorInputs) await bundleEntry('runtime/push.ts', input.modules, input.features);
const floorSeconds = (performance.now() - start) / 1000;

// The command as a site owner runs it: one `push-kit build` process for the 200 configs, its start included.
start = performance.now();
const cli = spawnSync(process.execPath, ['bin/push-kit.js', 'build', ...files, '--out', join(work, 'dist')], { encoding: 'utf8' });
const buildSeconds = (performance.now() - start) / 1000;
await rm(work, { recursive: true, force: true });
if (cli.status !== 0) throw new Error(`the build failed: ${cli.stderr}`);

console.log(`build throughput, ${COUNT} generated site configs`);
console.log('target'.padEnd(52), 'seconds'.padStart(8), 'sites/s'.padStart(8));
console.log(
  'floor: esbuild of runtime/push.ts per site'.padEnd(52),
  floorSeconds.toFixed(2).padStart(8),
  (COUNT / floorSeconds).toFixed(1).padStart(8),
);
console.log(
  'push-kit build CONFIG... (every file written)'.padEnd(52),
  buildSeconds.toFixed(2).padStart(8),
  (COUNT / buildSeconds).toFixed(1).padStart(8),
);
console.log(
  `\npush-kit build takes ${(buildSeconds / floorSeconds).toFixed(2)}x the floor (goal: within 2x); ${(COUNT / buildSeconds).toFixed(1)} sites/s (goal: at least 50)`,
);
