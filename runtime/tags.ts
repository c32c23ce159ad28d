// Custom tags (batched, sent 50 ms after the last one, flushed when the page hides), custom dimensions
// (`_vwo_cd_{dimension}`) and user properties (/dyn) (spec sections 3 and 7).
//
// Tags call: GET {services server}/tags with hash, subscriberId and tags (a JSON object of key -> value);
// on page hide the same URL goes through navigator.sendBeacon (a POST whose query carries the parameters).
import type { CoreServices, RuntimeServices } from './services.ts';
import type {
  SubscriberAttributesQuery,
  SubscriberAttributesReply,
  TagsQuery,
  UserPropertiesQuery,
  UserPropertiesReply,
} from '../contract/visitor-calls.ts';
import { dimensionKey, Key } from './storage-keys.ts';

/** Tag values set on this browser, for segment conditions. */
export function storedTags(services: CoreServices): Record<string, string> {
  try {
    return JSON.parse(services.local_.get(Key.TAGS) || '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

export function createTagger(services: CoreServices): { tag(key: string, value: string): void } {
  let batch: Record<string, string> = {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const url = services.site_.servicesServerUrl + '/tags';

  const send = (hiding: boolean): void => {
    // (a batch sent at page hide leaves its pending timer an empty batch, which sends nothing)
    const subscriberId = services.subscriberId_();
    if (!subscriberId || !Object.keys(batch).length) return;
    const params = {
      hash: services.site_.hash,
      subscriberId,
      subscriberSecret: services.secret_(),
      tags: JSON.stringify(batch),
    } satisfies TagsQuery;
    batch = {};
    if (hiding && navigator.sendBeacon) {
      try {
        // every parameter is a string: URLSearchParams takes them as they are
        if (navigator.sendBeacon(url + '?' + new URLSearchParams(params))) return;
      } catch {
        // Fall back to the GET below.
      }
    }
    services.get_(url, params).catch(() => {
      // A lost tag call is not the page's problem; the value stays stored locally.
    });
  };

  let listening = false;

  return {
    tag(key: string, value: string): void {
      // a batch can wait only after a tag call: the page-hide listeners come with the first
      if (!listening) {
        listening = true;
        addEventListener('pagehide', () => send(true));
        document.addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && send(true));
      }
      batch[key] = value;
      const stored = storedTags(services);
      stored[key] = value;
      services.local_.set(Key.TAGS, JSON.stringify(stored));
      clearTimeout(timer);
      // 50 ms: the tags set in one task go in one request (written in place: esbuild keeps a `const` as a variable).
      timer = setTimeout(() => send(false), 50);
    },
  };
}

/**
 * Once per browser session, for a synced subscriber, after the view's sync: reads the custom dimension values
 * (getSubscriberAttributes.php) and stores each as `_vwo_cd_{dimension}`, and refreshes the user properties
 * (/dyn: the subscriber's tags on the provider become the local tags segment conditions read). Each part is
 * in push.js only for a site that configures it (customDimensions, refreshUserProperties).
 */
export async function refreshVisitorData(services: RuntimeServices, browser: string): Promise<void> {
  const subscriberId = services.subscriberId_();
  if (!subscriberId || services.session_.get(Key.REFRESHED)) return;
  services.session_.set(Key.REFRESHED, '1');
  const { site_: site } = services;
  const proof = { hash: site.hash, subscriberId, subscriberSecret: services.secret_() };
  if (PK_FEATURES.customDimensions) {
    try {
      const query: SubscriberAttributesQuery = Object.assign({}, proof, {
        customDimensions: site.customDimensions!.join(','),
        browser,
      });
      const reply = (await services.get_(
        site.serverSyncUrl + '/getSubscriberAttributes.php',
        query,
      )) as Partial<SubscriberAttributesReply> | null;
      for (const [name, value] of Object.entries((reply && reply.result) || {})) {
        if (value != null) services.local_.set(dimensionKey(name), String(value));
      }
    } catch {
      // Keep the values stored earlier.
    }
  }
  if (PK_FEATURES.userProperties) {
    try {
      const reply = (await services.jsonp_(
        site.servicesServerUrl + '/dyn',
        proof satisfies UserPropertiesQuery,
      )) as Partial<UserPropertiesReply> | null;
      if (reply && reply.tags && typeof reply.tags === 'object')
        services.local_.set(Key.TAGS, JSON.stringify(Object.assign({}, storedTags(services), reply.tags)));
    } catch {
      // Keep the tags stored earlier.
    }
  }
}
