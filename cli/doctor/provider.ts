// The provider (serverSyncUrl) from the site's side: it answers (/health), over https when the site is https (a
// browser blocks an https page's calls to http as mixed content, a redirect to http included), it allows the
// site's origin by CORS (a preflight with the site's Origin, as a browser sends it), and its clock agrees with
// this machine's (its `Date` header): a VAPID token's `exp` is read against the push service's clock.
import { isLocalHost, needsChildWindow } from '../../compiler/features.ts';
import { fetchText, finding, type DoctorCheck, type DoctorContext } from './check.ts';

const PROVIDER = 'the provider';
/** Clocks further apart than this warn. */
export const CLOCK_SKEW_WARN_MS = 5 * 60 * 1000;

function providerBase(context: DoctorContext): string {
  return context.config.serverSyncUrl.replace(/\/+$/, '');
}

function mixedContent(origin: string, url: string): boolean {
  const target = new URL(url);
  return new URL(origin).protocol === 'https:' && target.protocol === 'http:' && !isLocalHost(target.hostname);
}

/** The origin the sync calls come from: the site's, or its child window's (none when that is the provider's own). */
function callingOrigin(context: DoctorContext): string | undefined {
  const { config } = context;
  return needsChildWindow(config.origin) ? config.childWindowOrigin : config.origin;
}

async function checkCors(context: DoctorContext, base: string): Promise<DoctorCheck> {
  const { site } = context;
  const origin = callingOrigin(context);
  if (origin === undefined) return finding('CORS_SAME_ORIGIN', site, { provider: base });
  const url = `${base}/syncSubscriptionAction.php`;
  const fetched = await fetchText(url, context.timeoutMs, PROVIDER, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  if (!fetched.ok) return finding('CORS_UNREACHABLE', site, { url, reason: fetched.reason });
  const allowed = fetched.reply.headers.get('access-control-allow-origin');
  if (allowed !== origin && allowed !== '*')
    return finding('CORS_MISSING', site, { url, origin, status: fetched.reply.status, allowed: allowed ?? undefined });
  return finding('CORS_OK', site, { url, origin });
}

/** The provider's checks, and its clock (ms, as its Date header said) when it answered. */
export async function providerChecks(context: DoctorContext): Promise<{ checks: DoctorCheck[]; providerNow?: number }> {
  const { site, config } = context;
  const base = providerBase(context);
  const checks: DoctorCheck[] = [];
  const url = `${base}/health`;
  const sentAt = Date.now();
  const fetched = await fetchText(url, context.timeoutMs, PROVIDER);
  const localNow = (sentAt + Date.now()) / 2;
  if (mixedContent(config.origin, base)) checks.push(finding('PROVIDER_HTTP', site, { origin: config.origin, url: base }));
  else if (fetched.ok && mixedContent(config.origin, fetched.reply.url))
    checks.push(finding('PROVIDER_REDIRECTS_TO_HTTP', site, { origin: config.origin, url, to: fetched.reply.url }));
  else checks.push(finding('PROVIDER_HTTPS_OK', site, { origin: config.origin, url: base }));
  if (!fetched.ok) return { checks: [...checks, finding('PROVIDER_UNREACHABLE', site, { url, reason: fetched.reason })] };
  const { reply } = fetched;
  if (reply.status !== 200) return { checks: [...checks, finding('PROVIDER_STATUS', site, { url, status: reply.status })] };
  checks.push(finding('PROVIDER_OK', site, { url }));
  checks.push(await checkCors(context, base));
  const date = reply.headers.get('date');
  const providerNow = date === null ? Number.NaN : Date.parse(date);
  if (Number.isNaN(providerNow)) {
    checks.push(finding('CLOCK_UNKNOWN', site, { url }));
    return { checks };
  }
  const skewMs = providerNow - localNow;
  // the Date header has whole seconds
  const skew = `${Math.abs(Math.round(skewMs / 1000))} s ${skewMs >= 0 ? 'ahead of' : 'behind'} this machine`;
  checks.push(finding(Math.abs(skewMs) > CLOCK_SKEW_WARN_MS ? 'CLOCK_SKEW' : 'CLOCK_OK', site, { url, skew }));
  return { checks, providerNow };
}
