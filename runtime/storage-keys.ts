// Every name this browser stores under: the localStorage keys, cookies and query parameters of spec
// section 3 exactly as the spec names them, push-kit's own `pushkit_` keys, and the IndexedDB database that
// push.js, the child window and the service workers share.
import type { SegmentId } from './site-module.ts';

export const SUBSCRIBER_ID = 'wingify_push_subscriber_id';
export const SUBSCRIPTION_ID = 'wingify_push_subscription_id';
export const ENDPOINT = 'wingify_push_subscription_endpoint';
export const STATUS = 'wingify_push_subscription_status';
export const DB_STATUS = 'wingify_push_db_status';
export const LANGUAGE = 'wingify_push_subscriber_lang';
export const DO_NOT_SHOW = 'wingify_push_do_not_show_notification_popup';
export const DO_NOT_TRACK = 'wingify_donot_track_actions';
export const OPT_OUT = 'pushkit_opt_out';
/** The secret the provider issued with the subscriber id: the proof, sent with each call about this subscriber. */
export const SUBSCRIBER_SECRET = 'pushkit_subscriber_secret';
export const VAPID_KEY = 'pshcrw_v_k';
export const GCM_ID = 'wingify_push_gcm_id';
export const UPDATE_SUBSCRIBER_ID = 'pshcrw_update_subId';
export const UUID_COOKIE = '_wingify_pc_uuid';
/** Prefix of the data of the last shop event: `wingifyEcomData-add_cart`, `wingifyEcomData-order`. */
export const ECOM_DATA = 'wingifyEcomData-';
/** Tag values set on this browser (a JSON object), for segment conditions. */
export const TAGS = 'pushkit_tags';
/** Number of browser sessions seen (localStorage). */
export const VISITS = 'pushkit_visits';
/** Start time of this browser session (session cookie). */
export const SESSION_START = 'pushkit_session_start';
/** The custom dimensions and user properties were read this session (session cookie). */
export const REFRESHED = 'pushkit_refreshed';
/** When a cart-add form was posted this session (session cookie). */
export const CART_POSTED = 'pushkit_cart_posted';

/** The local indexed database (spec section 3): named for the product, version 1, one store, one record. */
export const DB_NAME = 'pushkit';
export const DB_STORE = 'subscriptionInfo';
export const DB_RECORD = 'subscription';
export const DB_VERSION = 1;

/** Segment marker: holds the segment version the visitor was added for. */
export const segmentMarkerKey = (sid: SegmentId): string => 'wingifySegment-' + sid;
/** A click-segment add not yet confirmed, retried on the next view. */
export const retrySegmentKey = (sid: SegmentId): string => 'wingifyRetrySegment-' + sid;
/** A custom dimension value. */
export const dimensionKey = (dimension: string): string => '_vwo_cd_' + dimension;
/** A persisted opt-in trigger event. */
export const triggerEventKey = (kind: string): string => 'pushkit_event_' + kind;

/** Subscriber identifier lifetime (spec section 9). */
export const UUID_DAYS = 10000;
/** How long a refused prompt stays hidden (the config's doNotShowDays, 7 by default); the spec only says the expiry is in days. */
export const DO_NOT_SHOW_DAYS = PK_CONSTANTS.doNotShowDays;
