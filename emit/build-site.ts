// Builds one site config into `<outDir>/<name>/`. A library API: it never prints and never exits; every
// failure comes back as problems naming a field (or `(build)` for a failure outside the config).
import { loadConfig, siteNameOf, type ConfigProblem, type LoadedConfig } from '../config/load-config.ts';
import type { SiteFeatures } from '../runtime/site-module.ts';
import { siteFeatures } from '../compiler/features.ts';
import { generateSiteModule, generateWorkerSiteModule, SiteModuleError } from '../compiler/site-module.ts';
import { bundleSite } from './bundle.ts';
import { renderPrompts } from './render-prompts.tsx';
import { readIframeCss, renderChildWindow, renderManifest, renderSnippet } from './render-templates.ts';
import { BROTLI_QUALITY, measureSizes, type FileSizes } from './sizes.ts';
import { writeSiteAtomically, type AfterWriteHook, type OutputFile } from './write-site.ts';

export type SiteBuildResult =
  | {
      ok: true;
      name: string;
      dir: string;
      files: Array<{ path: string } & FileSizes>;
      features: SiteFeatures;
      warnings: ConfigProblem[];
    }
  | { ok: false; name: string; problems: ConfigProblem[] };

export interface BuildSiteOptions {
  /** Called after each file lands in the temp folder (tests use it to fail mid-write). */
  afterWrite?: AfterWriteHook;
}

export async function buildSite(configFile: string, outDir: string, options: BuildSiteOptions = {}): Promise<SiteBuildResult> {
  let loaded: LoadedConfig;
  try {
    loaded = await loadConfig(configFile);
  } catch (error) {
    return { ok: false, name: siteNameOf(configFile), problems: [{ path: '(file)', message: (error as Error).message }] };
  }
  if (!loaded.ok) return { ok: false, name: loaded.name, problems: loaded.problems };
  const { name, config, warnings } = loaded;
  try {
    const features = siteFeatures(config);
    const prompts = await renderPrompts(config, features);
    const modules = {
      'pushkit:site': generateSiteModule(config, prompts),
      'pushkit:worker-site': generateWorkerSiteModule(config),
    };
    const bundles = await bundleSite(modules, features);
    const serverSyncUrl = config.serverSyncUrl.replace(/\/+$/, '');
    const outputs: OutputFile[] = [
      { path: 'push.js', content: bundles.push.code },
      { path: 'sw.js', content: bundles.sw.code },
      { path: 'sw-firefox.js', content: bundles.swFirefox.code },
      { path: 'push-kit-sw.js', content: bundles.swImport.code },
      { path: 'manifest.json', content: await renderManifest(config) },
      { path: 'child-window.html', content: await renderChildWindow(config, serverSyncUrl, bundles.childWindow.code) },
      { path: 'http-v4/css/pc-iframe.css', content: await readIframeCss() },
      { path: 'snippet.html', content: await renderSnippet(config) },
    ];
    const files = await Promise.all(outputs.map(async (file) => ({ path: file.path, ...(await measureSizes(file.content)) })));
    const report = {
      site: name,
      generatedAt: new Date().toISOString(),
      files: Object.fromEntries(files.map(({ path, ...sizes }) => [path, sizes])),
      compression: { gzipLevel: 9, brotliQuality: BROTLI_QUALITY },
      features,
      warnings,
    };
    outputs.push({ path: 'report.json', content: `${JSON.stringify(report, null, 2)}\n` });
    const dir = await writeSiteAtomically(outDir, name, outputs, options.afterWrite);
    return { ok: true, name, dir, files, features, warnings };
  } catch (error) {
    if (error instanceof SiteModuleError)
      return { ok: false, name, problems: [{ path: error.path, message: error.message.slice(error.path.length + 2) }] };
    return { ok: false, name, problems: [{ path: '(build)', message: (error as Error).message }] };
  }
}
