// Custom tags (batched, sent 50 ms after the last one, flushed when the page hides), custom dimensions
// and user properties (spec section 7).
//
// Tags call: GET {services server}/tags with hash, subscriberId and tags (a JSON object of key -> value);
// on page hide the same URL goes through navigator.sendBeacon (a POST whose query carries the parameters).
import type { RuntimeServices } from './services.ts';
import { queryString } from './transport.ts';
import type { SubscriberAttributesQuery, SubscriberAttributesReply, TagsQuery, UserPropertiesQuery } from '../contract/visitor-calls.ts';
import { dimensionKey, TAGS } from './storage-keys.ts';

const DEBOUNCE_MS = 50;

/** Tag values set on this browser, for segment conditions. */
export function storedTags(services: RuntimeServices): Record<string, string> {
  try {
    return JSON.parse(services.local.get(TAGS) || '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

export function createTagger(services: RuntimeServices): { tag(key: string, value: string): void } {
  let batch: Record<string, string> = {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const url = services.site.servicesServerUrl + '/tags';

  const send = (hiding: boolean): void => {
    clearTimeout(timer);
    timer = undefined;
    const subscriberId = services.subscriberId();
    if (!subscriberId || !Object.keys(batch).length) return;
    const params = {
      hash: services.site.hash,
      subscriberId,
      subscriberSecret: services.secret(),
      tags: JSON.stringify(batch),
    } satisfies TagsQuery;
    batch = {};
    if (hiding && navigator.sendBeacon) {
      try {
        if (navigator.sendBeacon(url + '?' + queryString(params))) return;
      } catch {
        // Fall back to the GET below.
      }
    }
    services.get(url, params).catch(() => {
      // A lost tag call is not the page's problem; the value stays stored locally.
    });
  };

  const onHide = (): void => {
    if (document.visibilityState === 'hidden') send(true);
  };
  addEventListener('pagehide', () => send(true));
  document.addEventListener('visibilitychange', onHide);

  return {
    tag(key: string, value: string): void {
      batch[key] = value;
      const stored = storedTags(services);
      stored[key] = value;
      services.local.set(TAGS, JSON.stringify(stored));
      clearTimeout(timer);
      timer = setTimeout(() => send(false), DEBOUNCE_MS);
    },
  };
}

/** Reads custom dimension values and stores each as `_vwo_cd_{dimension}`. */
export async function refreshDimensions(services: RuntimeServices, dimensions: string[]): Promise<void> {
  const subscriberId = services.subscriberId();
  if (!subscriberId || !dimensions.length) return;
  try {
    const reply = (await services.get(services.site.serverSyncUrl + '/getSubscriberAttributes.php', {
      hash: services.site.hash,
      subscriberId,
      subscriberSecret: services.secret(),
      customDimensions: dimensions.join(','),
      browser: navigator.userAgent.includes('Firefox') ? 'firefox' : 'chrome',
    } satisfies SubscriberAttributesQuery)) as Partial<SubscriberAttributesReply> | null;
    for (const [name, value] of Object.entries(reply?.result ?? {})) {
      if (value !== null && value !== undefined) services.local.set(dimensionKey(name), String(value));
    }
  } catch {
    // Keep the values stored earlier.
  }
}

/** JSONP GET {services server}/dyn?hash={hash}: refreshes user properties; resolves the reply or null. */
export async function refreshUserProperties(services: RuntimeServices): Promise<unknown> {
  try {
    return await services.jsonp(services.site.servicesServerUrl + '/dyn', { hash: services.site.hash } satisfies UserPropertiesQuery);
  } catch {
    return null;
  }
}
