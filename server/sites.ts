// The sites a provider hosts: the site configs (validated by the same schema as `push-kit build`), keyed by
// their `hash`, with the folder where `push-kit build` wrote each one.
import { readdir } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { configProblem, formatProblem } from '../config/errors.ts';
import { ServerError } from './errors.ts';
import { loadConfig } from '../config/load-config.ts';
import type { SiteConfig } from '../config/schema.ts';

export interface HostedSite {
  /** The config file's base name, as `push-kit build` names its output folder. */
  name: string;
  hash: string;
  file: string;
  config: SiteConfig;
  /** `<dist>/<name>`: the built bundle, when there is one. */
  builtDir: string;
}

export interface LoadedSites {
  sites: HostedSite[];
  /** One line per config that could not be hosted, `FILE: field.path: message`. */
  problems: string[];
}

function patternToRegExp(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${escaped}$`);
}

/** Expands a glob with `*` / `?` in its file name only (`site-configs/*.json`); a plain path is kept as is. */
async function expand(glob: string): Promise<string[]> {
  const name = basename(glob);
  if (!/[*?]/.test(name)) return [glob];
  const dir = dirname(glob);
  if (/[*?]/.test(dir)) throw new Error(`${glob}: wildcards are supported in the file name only`);
  const matcher = patternToRegExp(name);
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return [];
  }
  return entries
    .filter((entry) => matcher.test(entry))
    .sort()
    .map((entry) => join(dir, entry));
}

export async function loadSites(globs: string[], distDir: string): Promise<LoadedSites> {
  const sites: HostedSite[] = [];
  const problems: string[] = [];
  const files = [...new Set((await Promise.all(globs.map(expand))).flat())];
  for (const file of files) {
    const loaded = await loadConfig(file);
    if (!loaded.ok) {
      problems.push(...loaded.problems.map((problem) => formatProblem(file, problem)));
      continue;
    }
    // `push-kit validate` makes the same checks (cli/commands/validate.ts), with the same messages
    const { hash } = loaded.config;
    const sameHash = sites.find((site) => site.hash === hash);
    if (sameHash) {
      problems.push(formatProblem(file, configProblem('E_DUPLICATE_HASH', 'hash', { hash, first: sameHash.file })));
      continue;
    }
    const sameName = sites.find((site) => site.name === loaded.name);
    if (sameName) {
      problems.push(formatProblem(file, configProblem('E_DUPLICATE_NAME', '(file)', { name: loaded.name, first: sameName.file })));
      continue;
    }
    // Two sites on one child window origin would share its browser state again (issue 17, item 6).
    const { childWindowOrigin } = loaded.config;
    const sharer = childWindowOrigin && sites.find((site) => site.config.childWindowOrigin === childWindowOrigin);
    if (sharer) {
      const problem = configProblem('E_SHARED_CHILD_WINDOW_ORIGIN', 'childWindowOrigin', { origin: childWindowOrigin, first: sharer.file });
      problems.push(formatProblem(file, problem));
      continue;
    }
    sites.push({ name: loaded.name, hash: loaded.config.hash, file, config: loaded.config, builtDir: join(distDir, loaded.name) });
  }
  return { sites, problems };
}

/** The valid site config named `name` (its file's base name) among `globs`; else E_SITE_NAME_UNKNOWN. */
export async function siteNamed(name: string, globs = ['site-configs/*.json'], distDir = 'dist'): Promise<HostedSite> {
  const { sites } = await loadSites(globs, distDir);
  const site = sites.find((candidate) => candidate.name === name);
  if (!site) {
    const known = sites.map((candidate) => candidate.name).join(', ') || 'none';
    throw new ServerError('E_SITE_NAME_UNKNOWN', { name, known });
  }
  return site;
}

/** A built file of a site (`child-window.html`, ...), or null when the site has not been built. */
export async function readBuiltFile(site: HostedSite, relativePath: string): Promise<Buffer | null> {
  try {
    return await readFile(join(site.builtDir, relativePath));
  } catch {
    return null;
  }
}
