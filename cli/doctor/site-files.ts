// The site from the outside: its pages carry the snippet, `push.js` is served as JavaScript and is the site's
// build (or at least push-kit's, for this site), and the manifest is JSON with the sender id the config names.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SiteConfig } from '../../config/schema.ts';
import { fetchText, finding, isJavaScriptType, mimeEssence, siteUrl, type DoctorCheck, type DoctorContext } from './check.ts';

const WEB_SERVER = "the site's web server";

/** Where the snippet loads push.js from: `{cdnUrl}/push.js`, else the site's own /push.js. */
export function pushJsUrl(config: SiteConfig): string {
  return config.cdnUrl ? `${config.cdnUrl.replace(/\/+$/, '')}/push.js` : siteUrl(config, '/push.js');
}

/** The site's home page and the pages `includeUrls` names literally (a path, or a URL on the site, no `*`). */
export function pagesToCheck(config: SiteConfig): string[] {
  const pages = new Set([`${config.origin}/`]);
  for (const pattern of config.includeUrls) {
    if (pattern.includes('*') || pattern.startsWith('contains:') || pattern.startsWith('regex:')) continue;
    if (pattern.startsWith('/')) pages.add(siteUrl(config, pattern));
    else if (URL.canParse(pattern) && new URL(pattern).origin === config.origin) pages.add(new URL(pattern).href);
  }
  return [...pages];
}

/** A file of the site's build, `<dist>/<site>/<file>`, or undefined when there is none. */
export async function builtFile(context: DoctorContext, file: string): Promise<{ path: string; text: string } | undefined> {
  const path = join(context.dist, context.site, file);
  try {
    return { path, text: await readFile(path, 'utf8') };
  } catch {
    return undefined;
  }
}

/** The script sources of a page's `<script src>` tags, resolved against the page. */
function scriptSources(html: string, page: string): string[] {
  return [...html.matchAll(/<script\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi)].flatMap((match) =>
    URL.canParse(match[1]!, page) ? [new URL(match[1]!, page).href] : [],
  );
}

async function checkPage(context: DoctorContext, page: string): Promise<DoctorCheck> {
  const { site, config } = context;
  const fetched = await fetchText(page, context.timeoutMs, WEB_SERVER);
  if (!fetched.ok) return finding('PAGE_UNREACHABLE', site, { url: page, reason: fetched.reason });
  const { reply } = fetched;
  if (reply.status !== 200) return finding('PAGE_STATUS', site, { url: page, status: reply.status });
  const expected = pushJsUrl(config);
  // relative sources are relative to where the page came from, after redirects
  const base = reply.url;
  if (!scriptSources(reply.body, base).includes(expected)) return finding('PAGE_NO_SNIPPET', site, { url: page, pushJs: expected });
  const manifest = siteUrl(config, config.manifestUrl);
  const linked = [...reply.body.matchAll(/<link\b[^>]*>/gi)].some(
    ([tag]) =>
      /\brel\s*=\s*["']?manifest\b/i.test(tag) &&
      [...tag.matchAll(/\bhref\s*=\s*["']([^"']+)["']/gi)].some(
        ([, href]) => URL.canParse(href!, base) && new URL(href!, base).href === manifest,
      ),
  );
  if (!linked) return finding('PAGE_NO_MANIFEST_LINK', site, { url: page, manifest });
  return finding('PAGE_OK', site, { url: page });
}

async function checkPushJs(context: DoctorContext): Promise<DoctorCheck> {
  const { site, config } = context;
  const url = pushJsUrl(config);
  const fetched = await fetchText(url, context.timeoutMs, WEB_SERVER);
  if (!fetched.ok) return finding('PUSH_JS_UNREACHABLE', site, { url, reason: fetched.reason });
  const { reply } = fetched;
  if (reply.status !== 200) return finding('PUSH_JS_STATUS', site, { url, status: reply.status });
  const type = mimeEssence(reply.headers);
  if (!isJavaScriptType(type)) return finding('PUSH_JS_TYPE', site, { url, type });
  const built = await builtFile(context, 'push.js');
  if (built && built.text === reply.body) return finding('PUSH_JS_OK', site, { url, how: `the same as ${built.path}` });
  // the site's config is compiled into its push.js: its hash names the site
  if (!reply.body.includes(JSON.stringify(config.hash))) return finding('PUSH_JS_FOREIGN', site, { url, hash: config.hash });
  if (built) return finding('PUSH_JS_STALE', site, { url, built: built.path });
  return finding('PUSH_JS_OK', site, {
    url,
    how: `push-kit's for hash ${config.hash}; no build in ${join(context.dist, site)} to compare`,
  });
}

async function checkManifest(context: DoctorContext): Promise<DoctorCheck> {
  const { site, config } = context;
  const url = siteUrl(config, config.manifestUrl);
  const fetched = await fetchText(url, context.timeoutMs, WEB_SERVER);
  if (!fetched.ok) return finding('MANIFEST_UNREACHABLE', site, { url, reason: fetched.reason });
  const { reply } = fetched;
  if (reply.status !== 200) return finding('MANIFEST_STATUS', site, { url, status: reply.status });
  let manifest: unknown;
  try {
    manifest = JSON.parse(reply.body);
  } catch (error) {
    return finding('MANIFEST_JSON', site, { url, reason: (error as Error).message });
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest))
    return finding('MANIFEST_JSON', site, { url, reason: 'it is not a JSON object' });
  const senderId = (manifest as { gcm_sender_id?: unknown }).gcm_sender_id;
  if (config.gcmSenderId !== undefined && senderId !== config.gcmSenderId)
    return finding('MANIFEST_SENDER_ID', site, {
      url,
      expected: config.gcmSenderId,
      found: senderId === undefined ? 'none' : JSON.stringify(senderId),
    });
  return finding('MANIFEST_OK', site, { url });
}

/** The pages, push.js and the manifest, fetched side by side. */
export async function siteFileChecks(context: DoctorContext): Promise<DoctorCheck[]> {
  const pages = await Promise.all(pagesToCheck(context.config).map((page) => checkPage(context, page)));
  return [...pages, await checkPushJs(context), await checkManifest(context)];
}
