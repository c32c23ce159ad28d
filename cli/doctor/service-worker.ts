// The worker at `swPath` from the outside: served with status 200 and a JavaScript type, with no redirect (a
// browser refuses both), allowed its scope (a worker controls only its own folder and below unless the answer
// carries `Service-Worker-Allowed`), and push-kit's own or a worker that imports `push-kit-sw.js`
// (docs/service-workers.md, set-up 2). Another library's worker at the scope (Workbox, OneSignal, Firebase
// messaging) would take push-kit's place: it is named, with the line that fixes it.
import { needsChildWindow } from '../../compiler/features.ts';
import { fetchText, finding, isJavaScriptType, mimeEssence, siteUrl, type DoctorCheck, type DoctorContext } from './check.ts';
import { builtFile } from './site-files.ts';

const WEB_SERVER = "the site's web server";
/** The tag of push-kit's renewal sync: in every worker push-kit builds (sw.js, push-kit-sw.js). */
const PUSH_KIT_MARK = 'pushkit-renewal';

/** Other libraries' workers, by what their scripts contain. */
const LIBRARIES: Array<{ name: string; mark: RegExp }> = [
  { name: 'Workbox', mark: /workbox|__WB_MANIFEST/i },
  { name: 'OneSignal', mark: /OneSignalSDK|onesignal\.com/i },
  { name: 'Firebase Cloud Messaging', mark: /firebase-messaging|firebase\.messaging\(|getMessaging\(|onBackgroundMessage\(/ },
];

/** The folder a script lives in: the widest scope it may have without Service-Worker-Allowed. */
function folderOf(pathname: string): string {
  return pathname.slice(0, pathname.lastIndexOf('/') + 1);
}

/** The URLs a worker's `importScripts(...)` calls name (string literals only), resolved against the worker. */
function importedScripts(code: string, workerUrl: string): string[] {
  const urls: string[] = [];
  for (const call of code.matchAll(/importScripts\s*\(([^)]*)\)/g))
    for (const literal of call[1]!.matchAll(/(["'`])([^"'`]+)\1/g))
      if (URL.canParse(literal[2]!, workerUrl)) urls.push(new URL(literal[2]!, workerUrl).href);
  return urls;
}

function checkScope(context: DoctorContext, workerUrl: string, headers: Headers): DoctorCheck {
  const { site, config } = context;
  const scope = new URL(config.swScope, `${config.origin}/`).pathname;
  const folder = folderOf(new URL(workerUrl).pathname);
  if (scope.startsWith(folder)) return finding('SW_SCOPE_OK', site, { scope, how: `inside the worker's folder ${folder}` });
  const allowedHeader = headers.get('service-worker-allowed');
  const allowed = allowedHeader && URL.canParse(allowedHeader, workerUrl) ? new URL(allowedHeader, workerUrl).pathname : undefined;
  if (allowed !== undefined && scope.startsWith(allowed))
    return finding('SW_SCOPE_OK', site, { scope, how: `Service-Worker-Allowed: ${allowedHeader}` });
  return finding('SW_SCOPE', site, { url: workerUrl, scope, folder, allowed: allowedHeader ?? undefined, swPath: config.swPath });
}

async function checkOwner(context: DoctorContext, workerUrl: string, code: string): Promise<DoctorCheck> {
  const { site, config } = context;
  const hashLiteral = JSON.stringify(config.hash);
  const built = await builtFile(context, 'sw.js');
  if (built && built.text === code) return finding('SW_OWNER_OK', site, { url: workerUrl, how: `the same as ${built.path}` });
  if (code.includes(PUSH_KIT_MARK) && code.includes(hashLiteral))
    return built
      ? finding('SW_STALE', site, { url: workerUrl, built: built.path })
      : finding('SW_OWNER_OK', site, { url: workerUrl, how: `push-kit's worker for hash ${config.hash}` });
  const library = LIBRARIES.find((candidate) => candidate.mark.test(code))?.name;
  const imported = importedScripts(code, workerUrl).find((url) => new URL(url).pathname.endsWith('/push-kit-sw.js'));
  if (imported === undefined)
    return library
      ? finding('SW_FOREIGN', site, { url: workerUrl, library, swPath: config.swPath })
      : finding('SW_NOT_PUSH_KIT', site, { url: workerUrl, swPath: config.swPath });
  // the imported script must itself be served, as JavaScript, and be push-kit's for this site
  const fetched = await fetchText(imported, context.timeoutMs, WEB_SERVER);
  const problem = !fetched.ok
    ? fetched.reason
    : fetched.reply.status !== 200
      ? `HTTP ${fetched.reply.status}`
      : !isJavaScriptType(mimeEssence(fetched.reply.headers))
        ? `served as ${mimeEssence(fetched.reply.headers)}, not JavaScript`
        : !fetched.reply.body.includes(PUSH_KIT_MARK) || !fetched.reply.body.includes(hashLiteral)
          ? `not push-kit's push-kit-sw.js for hash ${config.hash}`
          : undefined;
  if (problem !== undefined) return finding('SW_IMPORT_BROKEN', site, { url: workerUrl, imported, problem });
  return finding('SW_OWNER_OK', site, {
    url: workerUrl,
    how: `imports ${new URL(imported).pathname}${library ? ` beside ${library}` : ''}`,
  });
}

/** The worker at swPath: served, its scope allowed, and push-kit's (or importing push-kit-sw.js). */
export async function serviceWorkerChecks(context: DoctorContext): Promise<DoctorCheck[]> {
  const { site, config } = context;
  // a plain-http page cannot register a worker: such a site subscribes in the child window on the provider
  if (needsChildWindow(config.origin)) return [finding('SW_CHILD_WINDOW', site, { origin: config.origin })];
  const url = siteUrl(config, config.swPath);
  // a browser fetches a worker script without following redirects
  const fetched = await fetchText(url, context.timeoutMs, WEB_SERVER, { redirect: 'manual' });
  if (!fetched.ok) return [finding('SW_UNREACHABLE', site, { url, reason: fetched.reason })];
  const { reply } = fetched;
  if (reply.status >= 300 && reply.status < 400)
    return [finding('SW_REDIRECT', site, { url, status: reply.status, location: reply.headers.get('location') ?? '(none)' })];
  if (reply.status !== 200) return [finding('SW_STATUS', site, { url, status: reply.status, swPath: config.swPath })];
  const type = mimeEssence(reply.headers);
  const served = isJavaScriptType(type)
    ? finding('SW_OK', site, { url, type })
    : finding('SW_TYPE', site, { url, type, swPath: config.swPath });
  return [served, checkScope(context, url, reply.headers), await checkOwner(context, url, reply.body)];
}
