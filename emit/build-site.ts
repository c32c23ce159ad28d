// Builds one site config into `<outDir>/<name>/`. A library API: it never prints and never exits; every
// failure comes back as problems with a catalogue code, naming a field (or `(build)` for a failure outside the
// config). The config's expressions were compiled by its validation; the site module is generated from those.
import { configProblem, type ConfigErrorCode, type ConfigProblem } from '../config/errors.ts';
import { loadConfig, siteNameOf, type LoadedConfig } from '../config/load-config.ts';
import type { SiteFeatures } from '../runtime/site-module.ts';
import { siteConstants, siteFeatures } from '../compiler/features.ts';
import { generateSiteModule, generateWorkerSiteModule } from '../compiler/site-module.ts';
import { EmitError, emitError, type EmitErrorCode } from './errors.ts';
import { bundleSite, pushJsFolder } from './bundle.ts';
import { renderPrompts } from './render-prompts.tsx';
import { applyChildWindowColors } from './prompt-colors.ts';
import { readIframeCss, renderChildWindow, renderManifest, renderSnippet } from './render-templates.ts';
import { BROTLI_QUALITY, measureSizes, type FileSizes } from './sizes.ts';
import { writeSiteAtomically, type OutputFile } from './write-site.ts';

/** A problem of the config (its field path) or of the build (`(build)`). */
export interface BuildProblem {
  code: ConfigErrorCode | EmitErrorCode;
  path: string;
  message: string;
}

export type SiteBuildResult =
  | {
      ok: true;
      name: string;
      dir: string;
      files: Array<{ path: string } & FileSizes>;
      features: SiteFeatures;
      warnings: ConfigProblem[];
    }
  | { ok: false; name: string; problems: BuildProblem[] };

export async function buildSite(configFile: string, outDir: string): Promise<SiteBuildResult> {
  let loaded: LoadedConfig;
  try {
    loaded = await loadConfig(configFile);
  } catch (error) {
    return {
      ok: false,
      name: siteNameOf(configFile),
      problems: [configProblem('E_CONFIG_READ', '(file)', { reason: (error as Error).message })],
    };
  }
  if (!loaded.ok) return { ok: false, name: loaded.name, problems: loaded.problems };
  const { name, config, compiled } = loaded;
  try {
    const features = siteFeatures(config, compiled);
    const { warnings } = loaded;
    const prompts = await renderPrompts(config, features);
    const modules = {
      'pushkit:site': generateSiteModule(config, compiled, prompts),
      'pushkit:core-site': generateSiteModule(config, compiled, prompts, true),
      'pushkit:worker-site': generateWorkerSiteModule(config),
    };
    const bundles = await bundleSite(modules, features, siteConstants(config), pushJsFolder(config.cdnUrl));
    const serverSyncUrl = config.serverSyncUrl.replace(/\/+$/, '');
    const outputs: OutputFile[] = [
      { path: 'push.js', content: bundles.push.code },
      ...Object.values(bundles.chunks).map((chunk) => ({ path: chunk.file, content: chunk.code })),
      { path: 'sw.js', content: bundles.sw.code },
      { path: 'sw-firefox.js', content: bundles.swFirefox.code },
      { path: 'push-kit-sw.js', content: bundles.swImport.code },
      { path: 'manifest.json', content: await renderManifest(config) },
      { path: 'child-window.html', content: await renderChildWindow(config, serverSyncUrl, bundles.childWindow.code) },
      { path: 'http-v4/css/pc-iframe.css', content: applyChildWindowColors(await readIframeCss(), config.style.colors) },
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
    const dir = await writeSiteAtomically(outDir, name, outputs);
    return { ok: true, name, dir, files, features, warnings };
  } catch (error) {
    const failure = error instanceof EmitError ? error : emitError('E_BUILD', { reason: (error as Error).message });
    return { ok: false, name, problems: [{ code: failure.code, path: '(build)', message: failure.message }] };
  }
}
