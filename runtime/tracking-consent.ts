// Page-click tracking consent (spec sections 4 and 6): wingify_donot_track_actions is 1 for do not track
// and 0 for track; the server's value is fetched once per subscriber and then kept locally.
import type { CoreServices, RuntimeServices } from './services.ts';
import { Key } from './storage-keys.ts';
import type { TrackingConsentQuery, TrackingConsentReply } from '../contract/visitor-calls.ts';
import { logSwallowed } from './guard.ts';

/** Shop events are read and recorded with tracking consent and without an opt-out (spec section 4, "Segment membership"). */
export const shopEventsAllowed = (services: CoreServices): boolean => services.trackingAllowed_() && !services.optedOut_();

export const storeConsent = (services: CoreServices, allowed: boolean): void => services.local_.set(Key.DO_NOT_TRACK, allowed ? '0' : '1');

export async function fetchConsent(services: RuntimeServices, browser: string): Promise<void> {
  const subscriberId = services.subscriberId_();
  const known = services.local_.get(Key.DO_NOT_TRACK);
  if (!subscriberId || known === '0' || known === '1') return;
  try {
    const reply = (await services.get_(services.site_.serverSyncUrl + '/getSubscriptionClickTrackingPermissionDetails.php', {
      customerHash: services.site_.hash,
      subscriberId,
      subscriberSecret: services.secret_(),
      browser,
    } satisfies TrackingConsentQuery)) as Partial<TrackingConsentReply> | null;
    // A site that asks for consent tracks nobody whose consent the server has not recorded.
    if (reply && reply.status === 'success') storeConsent(services, Number(reply.pageClickTrackingPermission) === 1);
  } catch (error) {
    logSwallowed(error);
  }
}
