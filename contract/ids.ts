// The ids that cross the wires, as constants: the provider checks them on every call, the runtime checks
// the ones it reads back, the dashboard and the CLI check what the owner types. Constants only.

/** Segment ids and names (spec section 5): letters, digits, "_" and "-", fewer than 30 characters. */
export const SEGMENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,29}$/;
export const SEGMENT_ID_MAX_LENGTH = 29;
export const SEGMENT_ID_RULE = 'must be 1 to 29 letters, digits, "_" or "-"';
/** Where a segment id may also be given as a number (a site config's segmentations, a new segment's sid). */
export const SEGMENT_ID_OR_NUMBER_RULE = 'must be a positive integer, or 1 to 29 letters, digits, "_" or "-"';

/** A subscriber id as the provider accepts it in any call (it issues UUIDs; imported ids may hold "." or ":"). */
export const SUBSCRIBER_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
export const SUBSCRIBER_ID_MAX_LENGTH = 128;
export const SUBSCRIBER_ID_RULE = 'must be 1 to 128 letters, digits, ".", ":", "_" or "-"';

/**
 * What a script stores when it has no subscriber id (the spec's -1, a stringified undefined or null, 0): never
 * an id. Section 8's "Invalid Subscriber Id": push.js reads them as no id (addSubscriberToSegment gives -1)
 * and the provider refuses them with that text.
 */
export const PLACEHOLDER_SUBSCRIBER_ID = /^(?:-1|0|undefined|null|nan|false|true)$/i;
export const INVALID_SUBSCRIBER_ID = 'Invalid Subscriber Id';

/**
 * A subscriber id or visitor uuid as the browser keeps it (from the sync reply, storage, the uuid cookie, the
 * URL or the child window): UUIDs, the provider's or the runtime's own. Anything else read back is an edited
 * or corrupted value and counts as absent.
 */
export const BROWSER_ID_PATTERN = /^[\w-]{1,128}$/;

/**
 * The per-subscriber secret (`subscriberSecret`): 32 random bytes, base64url, issued by the provider in a sync
 * reply and sent back by the subscriber's browser with every call that reads or changes that subscriber.
 */
export const SUBSCRIBER_SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const SUBSCRIBER_SECRET_RULE = 'must be the 43 base64url characters the provider issued';

/** A custom dimension's name (`_vwo_cd_{dimension}`, getSubscriberAttributes.php's customDimensions). */
export const DIMENSION_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const DIMENSION_NAME_RULE = 'must be 1 to 64 letters, digits, "_" or "-"';
export const MAX_DIMENSIONS = 50;

/** A tag's key (`/tags`, an import's tags column) and the longest value a tag holds. */
export const TAG_KEY_PATTERN = /^[A-Za-z0-9_. -]{1,64}$/;
export const TAG_KEY_RULE = 'must be 1 to 64 letters, digits, " ", ".", "_" or "-"';
export const TAG_VALUE_MAX_LENGTH = 256;

/** A site's hash (its config's `hash`) as a call names it. */
export const SITE_HASH_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const SITE_HASH_MAX_LENGTH = 64;
export const SITE_HASH_RULE = 'must be 1 to 64 letters, digits, "_" or "-"';

/** A new site's name (`push-kit init`): its config file's base name, the owner API's `:name`, `send --site`. */
export const SITE_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,59}$/;
export const SITE_NAME_RULE = 'must be 1 to 60 lowercase letters, digits, "_" or "-", starting with a letter or digit';

/** A campaign id: the database's bigint, as digits. */
export const CAMPAIGN_ID_PATTERN = /^\d{1,18}$/;

/** A delivery's click token (contract/push-payload.ts CLICK_PARAM): the delivery id, ".", a 22-character MAC. */
export const CLICK_TOKEN_PATTERN = /^\d{1,18}\.[A-Za-z0-9_-]{22}$/;
export const CLICK_TOKEN_RULE = 'must be the click token of a delivery (digits, ".", 22 base64url characters)';
