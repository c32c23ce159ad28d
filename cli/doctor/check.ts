// What every check group of `push-kit doctor` shares: the shape of a finding (`{ id, site, status, message, fix }`,
// the stable `--json` shape of docs/ci.md), findings made from the keyed catalogue (messages.ts), and the one way
// the doctor calls the network: a timeout on every call, and a failure that names the URL and its cause.
import type { SiteConfig } from '../../config/schema.ts';
import { networkFailureReason } from '../owner-api-client.ts';
import { DOCTOR_FINDINGS, type DoctorCode, type FindingDetails } from './messages.ts';

export type CheckStatus = 'pass' | 'warn' | 'fail';

/** One finding: `id` names the check (stable: match on it), `fix` what to do (null when it passed). */
export interface DoctorCheck {
  id: string;
  site: string;
  status: CheckStatus;
  message: string;
  fix: string | null;
}

/** What a check group is given: the site (its name and validated config) and the doctor's settings. */
export interface DoctorContext {
  site: string;
  /** The config file the site comes from. */
  configFile: string;
  config: SiteConfig;
  /** The folder of `push-kit build` output: `<dist>/<site>/` holds the files the site should serve. */
  dist: string;
  /** The state folder (.push-kit) of the provider. */
  stateDir: string;
  timeoutMs: number;
}

/** The finding of `code` for `site`, its message and fix filled from the catalogue. */
export function finding<C extends DoctorCode>(code: C, site: string, ...details: FindingDetails<C>): DoctorCheck {
  const entry = DOCTOR_FINDINGS.entries[code] as {
    id: string;
    status: CheckStatus;
    fix?: (...args: unknown[]) => string;
  };
  return {
    id: entry.id,
    site,
    status: entry.status,
    message: DOCTOR_FINDINGS.message(code, ...details),
    fix: entry.fix ? entry.fix(...details) : null,
  };
}

/** An answer as the doctor reads it: the URL it came from after redirects, its status, headers and body. */
export interface Reply {
  url: string;
  status: number;
  headers: Headers;
  body: string;
}

export type Fetched = { ok: true; reply: Reply } | { ok: false; reason: string };

/**
 * GET (or `init.method`) `url` within `timeoutMs`; a call that got no answer says why (refused, unknown host,
 * TLS, timeout) in words naming the host. `redirect: 'manual'` reports a redirect as its 3xx answer.
 */
export async function fetchText(
  url: string,
  timeoutMs: number,
  server: string,
  init: { method?: string; headers?: Record<string, string>; redirect?: 'follow' | 'manual' } = {},
): Promise<Fetched> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, redirect: init.redirect ?? 'follow', signal });
    const body = await response.text();
    return { ok: true, reply: { url: response.url || url, status: response.status, headers: response.headers, body } };
  } catch (error) {
    const reason = signal.aborted
      ? `timed out: no answer within ${Math.round(timeoutMs / 100) / 10} s (--timeout-ms sets how long to wait)`
      : networkFailureReason(error, url, undefined, server);
    return { ok: false, reason };
  }
}

/** The MIME type's essence (`text/javascript; charset=utf-8` -> `text/javascript`), or `(none)`. */
export function mimeEssence(headers: Headers): string {
  return (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase() || '(none)';
}

/** The JavaScript MIME types a browser runs a script or a service worker as. */
export function isJavaScriptType(essence: string): boolean {
  return /^(text|application)\/(x-)?(javascript|ecmascript)$/.test(essence);
}

/** A site path or URL of the config as an absolute URL on the site's origin. */
export function siteUrl(config: SiteConfig, path: string): string {
  return new URL(path, `${config.origin}/`).href;
}
