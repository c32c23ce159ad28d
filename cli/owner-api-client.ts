// Calls of the owner API of a running provider (`push-kit send`, `campaigns`, `keys` through the provider that
// holds the database): the provider's own refusal message is what the owner reads, and a call that never got an
// answer says why (refused, unknown host, TLS, timeout, reset) and where, not undici's bare "fetch failed".
import { cliError } from './errors.ts';
import { causeChain } from '../server/errors.ts';
import type { FailureReply } from '../contract/owner-api.ts';

export type OwnerApiCall = <Reply>(path: string, init?: { method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'; body?: unknown }) => Promise<Reply>;

/** Milliseconds one call may take, answer included: PUSHKIT_PROVIDER_TIMEOUT_MS, else 30 s. */
function timeoutMs(): number {
  const value = Number(process.env.PUSHKIT_PROVIDER_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : 30_000;
}

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNABORTED']);
const TLS_CODE = /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|HOSTNAME_MISMATCH/;

/** The error, its causes and, for an AggregateError (every address of a host tried), the errors it gathers. */
function* everyCause(error: unknown): Generator<unknown> {
  for (const current of causeChain(error)) {
    yield current;
    const gathered = (current as { errors?: unknown }).errors;
    if (Array.isArray(gathered)) for (const inner of gathered) yield* causeChain(inner);
  }
}

/** Why a call got no answer, in words that name the cause and what to check; `server` is what was called. */
export function networkFailureReason(error: unknown, url: string, waitedMs?: number, server = 'the provider'): string {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const host = parsed?.host ?? url;
  for (const cause of everyCause(error)) {
    const name = (cause as { name?: unknown }).name;
    const code = String((cause as { code?: unknown }).code ?? '');
    const message = (cause as { message?: unknown }).message;
    if (name === 'TimeoutError' || TIMEOUT_CODES.has(code))
      return waitedMs === undefined
        ? `timed out (${code || name})`
        : `timed out: no answer within ${Math.round(waitedMs / 100) / 10} s (PUSHKIT_PROVIDER_TIMEOUT_MS sets how long to wait)`;
    if (code === 'ECONNREFUSED') return `connection refused (ECONNREFUSED): nothing listens on ${host}; is ${server} running?`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
      return `unknown host (DNS, ${code}): ${parsed?.hostname ?? url} has no address; check the URL`;
    if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `no route to ${host} (${code})`;
    if (RESET_CODES.has(code)) return `the connection was reset (${code}): is ${host} ${server}, and http or https as it serves?`;
    if (TLS_CODE.test(code)) return `TLS certificate not accepted (${code}): ${String(message)}`;
  }
  const messages = [...everyCause(error)].map((cause) => String((cause as { message?: unknown }).message ?? cause));
  return messages.filter((text, index) => text && messages.indexOf(text) === index).join(': ');
}

/** A caller of `<provider>/api/v1/sites/<site><path>` with the owner key (or the provider file's token). */
export function ownerApiClient(provider: string, siteName: string, key: string): OwnerApiCall {
  const base = `${provider.replace(/\/+$/, '')}/api/v1/sites/${encodeURIComponent(siteName)}`;
  return async <Reply>(path: string, init: { method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'; body?: unknown } = {}): Promise<Reply> => {
    const waitMs = timeoutMs();
    const signal = AbortSignal.timeout(waitMs);
    let response: Response;
    let reply: Reply | FailureReply | undefined;
    try {
      response = await fetch(`${base}${path}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${key}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        signal,
      });
      const text = await response.text();
      reply = (() => {
        try {
          return JSON.parse(text) as Reply | FailureReply;
        } catch {
          return undefined;
        }
      })();
    } catch (error) {
      throw cliError('E_PROVIDER_UNREACHABLE', { provider, reason: networkFailureReason(error, provider, waitMs) });
    }
    if (!response.ok) {
      const message = (reply as Partial<FailureReply> | undefined)?.message;
      throw cliError('E_PROVIDER_REFUSED', { reason: message ?? `HTTP ${response.status}` });
    }
    return reply as Reply;
  };
}
