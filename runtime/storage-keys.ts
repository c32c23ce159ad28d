// Storage keys, cookies and query parameters of spec section 3, exactly as the spec names them.
export const SUBSCRIBER_ID = 'wingify_push_subscriber_id';
export const SUBSCRIPTION_ID = 'wingify_push_subscription_id';
export const ENDPOINT = 'wingify_push_subscription_endpoint';
export const STATUS = 'wingify_push_subscription_status';
export const DB_STATUS = 'wingify_push_db_status';
export const LANGUAGE = 'wingify_push_subscriber_lang';
export const DO_NOT_SHOW = 'wingify_push_do_not_show_notification_popup';
export const DO_NOT_TRACK = 'wingify_donot_track_actions';
export const OPT_OUT = 'pushkit_opt_out';
export const VAPID_KEY = 'pshcrw_v_k';
export const GCM_ID = 'wingify_push_gcm_id';
export const UPDATE_SUBSCRIBER_ID = 'pshcrw_update_subId';
export const UUID_COOKIE = '_wingify_pc_uuid';
/** Subscriber identifier lifetime (spec section 9). */
export const UUID_DAYS = 10000;
/** How long a refused prompt stays hidden; the spec only says the expiry is in days. */
export const DO_NOT_SHOW_DAYS = 7;
