// The config `push-kit dev` builds: the site's own config with its URLs moved to the local ports dev listens on
// (origin, serverSyncUrl, servicesServerURL, and an icon that lives on the origin), everything else kept, so any
// config — an https production one too — runs on this machine without binding 80 or 443.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { STATE_DIR } from '../../server/state-paths.ts';

/** Where dev keeps its copy of the config and the bundle built from it; never the project's `dist`. */
export const DEV_DIR = join(STATE_DIR, 'dev');
export const DEV_DIST_DIR = join(DEV_DIR, 'dist');

export interface LocalUrls {
  /** `http://localhost:<site port>`: the page that embeds the bundle. */
  site: string;
  /** `http://localhost:<provider port>`: sync and services calls, the child window, the dashboard. */
  provider: string;
}

type RawConfig = Record<string, unknown>;

function originOf(value: unknown): string | undefined {
  return typeof value === 'string' && URL.canParse(value) ? new URL(value).origin : undefined;
}

/** A copy of a validated config's JSON with its URLs rewritten to `local`. */
export function localDevConfig(raw: RawConfig, local: LocalUrls): RawConfig {
  const siteOrigin = originOf(raw.origin);
  const copy: RawConfig = { ...raw, origin: local.site, serverSyncUrl: local.provider };
  // the editor's pointer is relative to the original file, and meaningless beside the copy
  delete copy.$schema;
  // dev serves push.js itself: the snippet must load the local one, not the production CDN's
  delete copy.cdnUrl;
  if (raw.servicesServerURL !== undefined) copy.servicesServerURL = local.provider;
  const style = raw.style as RawConfig | undefined;
  const iconUrl = style?.iconUrl;
  if (style && typeof iconUrl === 'string' && siteOrigin && originOf(iconUrl) === siteOrigin) {
    const icon = new URL(iconUrl);
    copy.style = { ...style, iconUrl: `${local.site}${icon.pathname}${icon.search}` };
  }
  return copy;
}

/** Writes the dev copy as `.push-kit/dev/<name>.json`: the same base name, so the site keeps its name and keys. */
export async function writeDevConfig(name: string, config: RawConfig): Promise<string> {
  await mkdir(DEV_DIR, { recursive: true, mode: 0o700 });
  const file = join(DEV_DIR, `${name}.json`);
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}
