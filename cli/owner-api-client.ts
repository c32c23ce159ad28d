// Calls of the owner API of a running provider (`push-kit send --key`, `push-kit campaigns --key`): the provider's
// own refusal message is what the owner reads.
import { cliError } from './errors.ts';
import type { FailureReply } from '../contract/owner-api.ts';

export type OwnerApiCall = <Reply>(path: string, init?: { method?: 'GET' | 'POST'; body?: unknown }) => Promise<Reply>;

/** A caller of `<provider>/api/v1/sites/<site><path>` with the owner key. */
export function ownerApiClient(provider: string, siteName: string, key: string): OwnerApiCall {
  const base = `${provider.replace(/\/+$/, '')}/api/v1/sites/${encodeURIComponent(siteName)}`;
  return async <Reply>(path: string, init: { method?: 'GET' | 'POST'; body?: unknown } = {}): Promise<Reply> => {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${key}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    } catch (error) {
      throw cliError('E_PROVIDER_UNREACHABLE', { provider, reason: (error as Error).message });
    }
    const reply = (await response.json().catch(() => undefined)) as Reply | FailureReply | undefined;
    if (!response.ok) {
      const message = (reply as Partial<FailureReply> | undefined)?.message;
      throw cliError('E_PROVIDER_REFUSED', { reason: message ?? `HTTP ${response.status}` });
    }
    return reply as Reply;
  };
}
