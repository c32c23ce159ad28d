// Handlebars rendering of manifest.json, child-window.html and snippet.html.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import type { SiteConfig } from '../config/schema.ts';
import { pushJsFolder } from './bundle.ts';
import { emitError } from './errors.ts';

const TEMPLATES = join(dirname(fileURLToPath(import.meta.url)), '../templates');

const handlebars = Handlebars.create();
handlebars.registerHelper('json', (value: unknown) => JSON.stringify(value ?? null));

// Compiled once per process: a build of many sites renders the same templates again and again.
const compiled = new Map<string, Promise<HandlebarsTemplateDelegate>>();

async function render(name: string, data: object): Promise<string> {
  let template = compiled.get(name);
  if (!template) {
    template = readFile(join(TEMPLATES, name), 'utf8').then((source) => handlebars.compile(source, { strict: false }));
    compiled.set(name, template);
  }
  return (await template)(data);
}

export async function renderManifest(config: SiteConfig): Promise<string> {
  const text = await render('manifest.json.hbs', { config });
  try {
    return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
  } catch (error) {
    throw emitError('E_MANIFEST_JSON', { reason: (error as Error).message });
  }
}

/** `</script` (any case) cannot appear inside an inline script; `<\/script` means the same in JS. */
export function escapeInlineScript(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

export async function renderChildWindow(config: SiteConfig, serverSyncUrl: string, childWindowScript: string): Promise<string> {
  const { brandingType, brandingText } = config.style;
  return render('child-window.html.hbs', {
    config,
    serverSyncUrl,
    // The lock icon of the unblock pictures sits in the child window's own address bar: its own host.
    originHost: new URL(config.childWindowOrigin ?? serverSyncUrl).host,
    brandingText: brandingType === 'none' ? '' : brandingType === 'custom' ? brandingText : 'Powered by push-kit',
    childWindowScript: escapeInlineScript(childWindowScript),
  });
}

export async function renderSnippet(config: SiteConfig): Promise<string> {
  // iOS names the home-screen icon by this link; a site with iOS home-screen apps gets it.
  const appleTouchIcon = config.iosHomeScreen.enabled ? config.style.iconUrl : undefined;
  // push.js from the site's own origin, or from the folder the config names (cdnUrl)
  const pushJsUrl = `${pushJsFolder(config.cdnUrl)}push.js`;
  return render('snippet.html.hbs', { manifestUrl: config.manifestUrl, appleTouchIcon, pushJsUrl });
}

let iframeCss: Promise<string> | undefined;

export async function readIframeCss(): Promise<string> {
  iframeCss ??= readFile(join(TEMPLATES, 'pc-iframe.css'), 'utf8');
  return iframeCss;
}
