// The visitor uuid (cookie _wingify_pc_uuid, spec section 4 "Uuid handling"): adopted from the URL, and
// linked to the stored subscriber id with update-subscriberId; a failed link is stored and retried.
import type { RuntimeServices } from './services.ts';
import { valid } from './create-services.ts';
import { BROWSER_ID_PATTERN } from '../contract/ids.ts';
import { syncUrl } from './sync.ts';
import { Key, UUID_DAYS } from './storage-keys.ts';
import { logSwallowed } from './guard.ts';

interface PendingLink {
  previousSubscriberId: string;
  subscriberId: string;
}

/** 128 random bits as 32 hex digits (crypto.randomUUID is younger than the browsers push.js supports). */
export const newUuid = (): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');

function pendingLink(services: RuntimeServices): PendingLink | undefined {
  try {
    const pair = JSON.parse(services.local_.get(Key.UPDATE_SUBSCRIBER_ID) || 'null') as Partial<PendingLink> | null;
    const previousSubscriberId = valid(pair && pair.previousSubscriberId, BROWSER_ID_PATTERN);
    const subscriberId = valid(pair && pair.subscriberId, BROWSER_ID_PATTERN);
    return previousSubscriberId && subscriberId ? { previousSubscriberId, subscriberId } : undefined;
  } catch {
    return undefined;
  }
}

/** The visitor's uuid, creating or adopting it; sends (or retries) update-subscriberId when needed. */
export async function visitorUuid(services: RuntimeServices, browserType: string, search: string): Promise<string> {
  const fromUrl = valid(new URLSearchParams(search).get('uuid'), BROWSER_ID_PATTERN);
  const stored = valid(services.cookies_.get(Key.UUID_COOKIE), BROWSER_ID_PATTERN);
  const uuid = fromUrl || stored || newUuid();
  if (uuid !== stored) services.cookies_.set(Key.UUID_COOKIE, uuid, UUID_DAYS);
  const subscriberId = services.subscriberId_();
  // The subscriber id is the provider's, so it never equals a uuid: a uuid this browser already holds was
  // sent with every sync (or linked, or its failed link is pending) and needs no link again.
  const link =
    fromUrl && subscriberId && fromUrl !== subscriberId && fromUrl !== stored
      ? { previousSubscriberId: subscriberId, subscriberId: fromUrl }
      : pendingLink(services);
  if (link) {
    try {
      const reply = (await services.postForm_(syncUrl(services), {
        hash: services.site_.hash,
        browserType,
        previousSubscriberId: link.previousSubscriberId,
        subscriberId: link.subscriberId,
        subscriberSecret: services.secret_(),
        action: 'update-subscriberId',
      })) as { status?: unknown } | null;
      if (!reply || reply.status !== 'success') throw new Error('update-subscriberId failed');
      services.local_.remove(Key.UPDATE_SUBSCRIBER_ID);
    } catch (error) {
      logSwallowed(error);
      services.local_.set(Key.UPDATE_SUBSCRIBER_ID, JSON.stringify(link));
    }
  }
  return uuid;
}
