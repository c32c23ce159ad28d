// The subscription sync (spec sections 3 and 7): the form the runtime and the service worker post to
// /syncSubscriptionAction.php and the provider's reply. Types and the action names only.

export const SYNC_ACTIONS = [
  'insert',
  'insert-failed',
  'update',
  'update-google-registration-id',
  'http-sync',
  'unsubscribe-ui',
  'unsubscribe-native',
  'get-subscriberid-from-server',
  'update-subscriberId',
  // push-kit's addition: "a block event is tracked" (spec section 4) names no call; the visitor who refused
  // permission is reported with this action (uuid, browserType; subscriberId and its secret when it has them),
  // stored as a `block` event and counted in the owner's stats (SiteStats.blocks).
  'block',
] as const;
export type SyncAction = (typeof SYNC_ACTIONS)[number];

/**
 * The form body, field by field (spec section 3, "Subscription sync payload"); an empty value counts as
 * absent. `uuid` is the visitor uuid (cookie _wingify_pc_uuid) that get-subscriberid-from-server looks up;
 * `previousSubscriberId` comes with update-subscriberId.
 */
export type SyncForm = {
  hash: string;
  action: SyncAction;
  /** The browser's PushSubscription as JSON text. */
  subscription?: string;
  subscriberId?: string;
  /**
   * The secret the provider issued for `subscriberId` (or, with update-subscriberId, for
   * `previousSubscriberId`): the proof that the call comes from that subscriber's browser. Added by push-kit.
   */
  subscriberSecret?: string;
  previousSubscriberId?: string;
  uuid?: string;
  previousSubscriptionId?: string;
  subscriptionId?: string;
  subscriptionEndPoint?: string;
  origin?: string;
  firefoxEncryptionKey?: string;
  browserType?: string;
  userLanguage?: string;
  /** Minutes, as Date.prototype.getTimezoneOffset gives them. */
  userTimezoneOffset?: number | string;
  userTimezone?: string;
  websitePushId?: string;
  vapidPublicKey?: string;
  subscriptionDomainUrl?: string;
  serviceWorkerPath?: string;
  subscriptionPageUrl?: string;
  pageClickTrackingPermission?: '0' | '1' | 'true' | 'false';
  gcmSenderId?: string;
  /** A JSONP callback name. */
  callback?: string;
};

/**
 * A success carries `subscriberSecret` when the provider issued one (a new subscriber, a browser that proved
 * its push subscription instead of the secret, a subscriber stored before secrets existed): the browser keeps
 * it beside the subscriber id. A failure also names its code in the provider's error catalogue
 * (server/errors.ts); the spec's fields come first.
 */
export type SyncReply =
  { status: 'success'; subscriberId: string; subscriberSecret?: string } | { status: 'failure'; message: string; code?: string };
