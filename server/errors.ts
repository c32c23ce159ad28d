// The provider's error catalogue: every failure the server answers or stops with has a code here, its HTTP
// status and the template of its message. Throw sites name a code and fill the template; replies carry the
// code beside the message (`{status: "failure", message, code}`), so callers and tests match on codes while
// the messages stay free to read well. A message starts with the parameter at fault, as spec section 7's
// callers expect.

import { defineCatalogue, type DetailsOf } from '../contract/catalogue.ts';

type Template<Details> = [Details] extends [void] ? () => string : (details: Details) => string;

const entry = <Details = void>(status: number, message: Template<Details>) => ({ status, message });

const onSite = (site?: string) => (site ? `site ${site}` : 'this site');

export const SERVER_ERRORS = {
  // Parameters (server/http/params.ts and the checks zod cannot make)
  E_PARAM_MISSING: entry<{ param: string }>(400, ({ param }) => `${param}: is required`),
  E_PARAM_INVALID: entry<{ param: string; problem: string }>(400, ({ param, problem }) => `${param}: ${problem}`),
  E_PARAM_UNKNOWN: entry<{ param: string }>(400, ({ param }) => `${param}: is not a parameter of this call`),
  E_CALLBACK_INVALID: entry(400, () => 'callback: must be a JavaScript identifier or dotted identifier path'),
  E_BODY_INVALID: entry<{ problem: string }>(400, ({ problem }) => `body: ${problem}`),
  E_BODY_TOO_LARGE: entry<{ limit: number }>(413, ({ limit }) => `body: larger than ${limit} bytes`),
  E_REQUEST_INVALID: entry<{ problem: string }>(400, ({ problem }) => `request: ${problem}`),
  E_ROUTE_UNKNOWN: entry<{ method: string; path: string }>(404, ({ method, path }) => `no such call: ${method} ${path}`),

  // Sites and who may call them
  E_SITE_UNKNOWN: entry<{ param: string }>(404, ({ param }) => `${param}: unknown site hash`),
  E_ORIGIN_FORBIDDEN: entry<{ origin: string; hash: string; siteOrigin: string }>(
    403,
    ({ origin, hash, siteOrigin }) => `origin: ${origin} may not call site ${hash}; its origin is ${siteOrigin}`,
  ),
  E_OWNER_KEY_MISSING: entry(401, () => 'authorization: send "Authorization: Bearer <owner key>" (printed by push-kit serve)'),
  E_OWNER_KEY: entry<{ site: string }>(401, ({ site }) => `authorization: wrong owner key for site ${site}`),
  E_OWNER_KEY_NO_SITE: entry(401, () => 'authorization: this key is not the owner key of any site on this server'),
  E_ROLE: entry<{ route: string; needed: string; name: string; role: string }>(
    403,
    ({ route, needed, name, role }) => `role: ${route} needs the ${needed} role; ${name} is ${role === 'viewer' ? 'a' : 'an'} ${role}`,
  ),
  E_ROLE_UNDECLARED: entry<{ route: string }>(403, ({ route }) => `role: ${route} declares no role, so nobody may call it`),
  E_TEAM_MEMBER_UNKNOWN: entry<{ param: string; id: string; site: string }>(
    404,
    ({ param, id, site }) => `${param}: ${site} has no member ${id} (push-kit members list --site ${site})`,
  ),
  E_MEMBER_LAST_OWNER: entry<{ site: string }>(
    409,
    ({ site }) => `member: ${site} would have no owner left; make another member an owner first`,
  ),
  E_MEMBERS_MAX: entry<{ site: string; max: number }>(
    409,
    ({ site, max }) => `member: ${site} has ${max} members, the most a site may have`,
  ),
  E_SIGN_IN_LINK: entry(401, () => 'token: this sign-in link is unknown, used already or expired; ask an owner for a new one'),
  E_RATE_LIMIT_IP: entry<{ limit: number; seconds: number; ip: string }>(
    429,
    ({ limit, seconds, ip }) => `rate limit: more than ${limit} requests in ${seconds} s from ${ip}`,
  ),
  E_RATE_LIMIT_SITE: entry<{ limit: number; seconds: number; hash: string }>(
    429,
    ({ limit, seconds, hash }) => `rate limit: more than ${limit} requests in ${seconds} s for site ${hash}`,
  ),

  // Proof that a call comes from the subscriber's browser (server/subscribers/subscriber-secret.ts)
  E_SUBSCRIBER_SECRET_MISSING: entry<{ param: string }>(
    403,
    ({ param }) => `subscriberSecret: required to act for the subscriber in ${param} (the secret its browser was issued)`,
  ),
  E_SUBSCRIBER_SECRET_WRONG: entry<{ param: string }>(403, ({ param }) => `subscriberSecret: not the secret of the subscriber in ${param}`),

  // Records a call names that are not there (or already are)
  E_SUBSCRIBER_UNKNOWN: entry<{ param: string; id: string; site?: string }>(
    404,
    ({ param, id, site }) => `${param}: no subscriber ${id} on ${onSite(site)}`,
  ),
  E_SEGMENT_UNKNOWN: entry<{ param: string; sid: string; site: string }>(
    404,
    ({ param, sid, site }) => `${param}: no segment ${sid} on ${onSite(site)}`,
  ),
  E_SEGMENT_NOT_DEFINED: entry<{ param: string; sid: string; who: string; limit: number }>(
    403,
    ({ param, sid, who, limit }) =>
      `${param}: segment ${sid} is not defined on this site, and ${who} created the ${limit} segments ${who === 'visitors' ? 'they' : 'it'} may; the owner creates it first`,
  ),
  E_TAG_LIMIT: entry<{ limit: number }>(
    409,
    ({ limit }) => `tags: a subscriber may have at most ${limit} tags; delete some (value null) first`,
  ),
  E_SEGMENT_EXISTS: entry<{ sid: string }>(409, ({ sid }) => `sid: segment ${sid} exists already`),
  E_AUDIENCE_UNKNOWN: entry<{ param: string; id: string; site: string }>(
    404,
    ({ param, id, site }) => `${param}: no audience ${id} on ${onSite(site)}`,
  ),
  E_AUDIENCE_EXISTS: entry<{ id: string }>(409, ({ id }) => `id: audience ${id} exists already`),
  E_MEMBER_UNKNOWN: entry<{ id: string; sid: string }>(404, ({ id, sid }) => `id: subscriber ${id} is not in segment ${sid}`),
  E_CLICK_TOKEN_WRONG: entry<Record<string, never>>(403, () => 'click: not the click token of a delivery of this site'),
  E_CAMPAIGN_ID_MISSING: entry<Record<string, never>>(400, () => 'campaignId: required when no click token is given'),
  E_NOTIFICATION_REPORT_UNPROVEN: entry<Record<string, never>>(
    403,
    () => 'endpoint: without a click token, the push subscription of a subscriber this campaign was sent to is required',
  ),
  E_NOTIFICATION_NOT_DELIVERED: entry<{ campaignId: string }>(
    403,
    ({ campaignId }) => `campaignId: the push service has not taken campaign ${campaignId}'s message to this subscriber; nothing to report`,
  ),
  E_NOTIFICATION_REPORT_LATE: entry<{ campaignId: string }>(
    403,
    ({ campaignId }) => `campaignId: campaign ${campaignId}'s message to this subscriber is past its TTL; a report no longer counts`,
  ),
  E_CAMPAIGN_NOT_CANCELLABLE: entry<{ id: string; status: string }>(
    409,
    ({ id, status }) => `id: campaign ${id} is ${status}; only a scheduled or sending campaign can be cancelled`,
  ),
  E_CAMPAIGN_UNKNOWN: entry<{ param: string; id: string; site?: string }>(
    404,
    ({ param, id, site }) => `${param}: no campaign ${id} on ${onSite(site)}`,
  ),
  E_CAMPAIGN_DETAILS_PRUNED: entry<{ id: string; days: number }>(
    409,
    ({ id, days }) =>
      `id: campaign ${id}'s details pruned after ${days} days: who it was delivered to is no longer kept, so it cannot go again to those who did not click`,
  ),
  E_CAMPAIGN_NOBODY_TO_RESEND: entry<{ id: string }>(
    409,
    ({ id }) => `id: campaign ${id} has nobody to send again to: everyone it was delivered to clicked, or is no longer subscribed`,
  ),

  // The sync actions of spec section 4 (server/sync/subscription-sync.ts)
  E_SYNC_NO_SUBSCRIPTION: entry(400, () => 'subscription: an endpoint or a subscriptionId is required'),
  E_SYNC_NO_VISITOR: entry(400, () => 'uuid: a uuid, subscriptionId or subscription is required'),
  E_SYNC_NOT_SUBSCRIBED: entry(404, () => 'subscriberId: no subscriber to update; send insert'),
  E_SYNC_SUBSCRIPTION_UNKNOWN: entry(404, () => 'previousSubscriptionId: no subscriber has this subscription id'),
  E_SYNC_SUBSCRIBER_UNKNOWN: entry<{ param: string }>(404, ({ param }) => `${param}: no subscriber with this id`),
  E_PUSH_SERVICE_FORBIDDEN: entry<{ param: string; origin: string }>(
    400,
    ({ param, origin }) => `${param}: ${origin} is not a push service this provider sends to`,
  ),

  // Imports (server/import/): what stops a whole file; a refused row is a problem of the report instead
  E_IMPORT_FORMAT: entry<{ problem: string }>(400, ({ problem }) => `file: ${problem}`),
  E_IMPORT_PARAM: entry<{ param: string; problem: string }>(400, ({ param, problem }) => `${param}: ${problem}`),
  E_SYNC_VISITOR_UNKNOWN: entry(404, () => 'uuid: no subscriber for this visitor (nor for its subscription)'),

  // Files the provider serves
  E_SITE_NOT_BUILT: entry<{ site: string; file: string; config: string }>(
    404,
    ({ site, file, config }) => `hash: site ${site} has no ${file} yet; run push-kit build ${config}`,
  ),
  E_CHILD_WINDOW_HOST: entry<{ site: string; host: string; childWindowOrigin: string }>(
    421,
    ({ site, host, childWindowOrigin }) =>
      `host: the child window of site ${site} is not served on ${host}; its origin is ${childWindowOrigin}`,
  ),
  E_STYLESHEET_NOT_BUILT: entry(404, () => 'pc-iframe.css: no site has been built yet; run push-kit build'),
  E_DASHBOARD_FILE_UNKNOWN: entry<{ file: string }>(404, ({ file }) => `file: no dashboard file ${file}`),
  E_DASHBOARD_UNAVAILABLE: entry<{ reason: string }>(503, ({ reason }) => `dashboard: it could not be built: ${reason}`),

  // The push transport (server/push/)
  E_PAYLOAD_TOO_LARGE: entry<{ size: number; limit: number }>(
    413,
    ({ size, limit }) => `push payload is ${size} bytes; Web Push allows at most ${limit} bytes`,
  ),
  E_PUSH_ADDRESS_PRIVATE: entry<{ host: string; address: string }>(
    403,
    ({ host, address }) =>
      `push endpoint host ${host} is at the private address ${address}; list its origin in PUSHKIT_PUSH_SERVICES to allow it`,
  ),

  // A project folder's sites and keys (server/sites.ts, server/push/vapid-keys.ts)
  E_SITE_NAME_UNKNOWN: entry<{ name: string; known: string }>(
    404,
    ({ name, known }) => `no valid site config named "${name}" (sites: ${known})`,
  ),
  E_VAPID_KEY_READ: entry<{ keyFile: string; reason: string }>(
    500,
    ({ keyFile, reason }) => `cannot read the site's private VAPID key ${keyFile}: ${reason}`,
  ),
  E_VAPID_KEY_MISMATCH: entry<{ keyFile: string; configFile: string }>(
    500,
    ({ keyFile, configFile }) => `${keyFile} is not the key pair of ${configFile}'s vapidPublicKey: subscribers would refuse its messages`,
  ),

  // A site's VAPID key ring (server/keys/)
  E_VAPID_KEY_INVALID: entry<{ param: string; problem: string }>(
    400,
    ({ param, problem }) => `${param}: not a VAPID key pair that can sign: ${problem}`,
  ),
  E_VAPID_KEY_UNKNOWN: entry<{ param: string; id: string; site: string; known: string }>(
    404,
    ({ param, id, site, known }) => `${param}: no key ${id} on the key ring of site ${site} (keys: ${known})`,
  ),
  E_VAPID_KEY_CURRENT: entry<{ param: string; id: string; site: string }>(
    409,
    ({ param, id, site }) => `${param}: ${id} is the current key of site ${site}; rotate first, then retire it once no subscriber uses it`,
  ),
  E_VAPID_KEY_IN_USE: entry<{ param: string; id: string; site: string; count: number }>(
    409,
    ({ param, id, site, count }) =>
      `${param}: ${count} subscriber${count === 1 ? '' : 's'} of site ${site} still use${count === 1 ? 's' : ''} key ${id}; ` +
      'retire it once none does (their browsers move to the current key on their next visit)',
  ),
  E_SITE_CONFIG_WRITE: entry<{ configFile: string; reason: string }>(
    500,
    ({ configFile, reason }) => `cannot write the site config ${configFile}: ${reason}`,
  ),

  // The database and the process
  E_DATABASE_IN_USE: entry<{ dataDir: string; by: string }>(
    503,
    ({ dataDir, by }) =>
      `the embedded database ${dataDir} is in use by ${by}; stop it, or run several processes on one PostgreSQL database`,
  ),
  E_DATABASE_UNAVAILABLE: entry(503, () => 'database unavailable, try again later'),
  E_STORAGE_FULL: entry(503, () => 'storage full, try again later'),
  E_DATABASE_REFUSED: entry<{ problem: string }>(400, ({ problem }) => `request: a value the database refuses: ${problem}`),
  E_INTERNAL: entry(500, () => 'internal error'),

  // Starting the provider (server/start-provider.ts); no HTTP reply, the status is that of the stop
  E_NO_SITES: entry<{ globs: string }>(500, ({ globs }) => `no valid site config matches ${globs}`),
  E_DATABASE_OPEN: entry<{ database: string; reason: string }>(
    500,
    ({ database, reason }) => `cannot open the database ${database}: ${reason}`,
  ),
  E_PUSH_SERVICES_SETTING: entry<{ entry: string }>(
    500,
    ({ entry }) => `push services: "${entry}" is not an https origin (https://host[:port], or https://*.host)`,
  ),
  E_WEBHOOK_SETTING: entry<{ entry: string }>(
    500,
    ({ entry }) => `webhook private origins: "${entry}" is not an origin (https://host[:port] or http://host[:port])`,
  ),

  // Webhooks (server/webhooks/)
  E_WEBHOOK_URL: entry<{ param: string; problem: string }>(400, ({ param, problem }) => `${param}: ${problem}`),
  E_WEBHOOK_UNKNOWN: entry<{ param: string; id: string; site: string }>(
    404,
    ({ param, id, site }) => `${param}: no webhook endpoint ${id} on site ${site} (push-kit webhooks list --site ${site})`,
  ),
  E_WEBHOOK_MESSAGE_UNKNOWN: entry<{ param: string; id: string; endpointId: string }>(
    404,
    ({ param, id, endpointId }) => `${param}: no event ${id} in the log of webhook endpoint ${endpointId}`,
  ),
  E_WEBHOOK_ENDPOINTS_MAX: entry<{ site: string; max: number }>(
    409,
    ({ site, max }) => `site ${site} has ${max} webhook endpoints, the most it may have: remove one first`,
  ),
  // Feeds (server/feeds/)
  E_FEED_URL: entry<{ param: string; problem: string }>(400, ({ param, problem }) => `${param}: ${problem}`),
  E_FEED_UNKNOWN: entry<{ param: string; id: string; site: string }>(
    404,
    ({ param, id, site }) => `${param}: no feed ${id} on site ${site} (GET /api/v1/sites/${site}/feeds lists them)`,
  ),
  E_FEEDS_MAX: entry<{ site: string; max: number }>(
    409,
    ({ site, max }) => `site ${site} has ${max} feeds, the most it may have: remove one first`,
  ),
  E_FEED_FROM_CONFIG: entry<{ param: string; id: string; file: string }>(
    409,
    ({ param, id, file }) =>
      `${param}: feed ${id} is listed in the site config ${file}: remove it from its feeds there, and it stops when the provider starts again`,
  ),
  E_CONFIG_FEED: entry<{ file: string; path: string; problem: string }>(400, ({ file, path, problem }) => `${file}: ${path}: ${problem}`),
  // Drafts, templates and test sends (server/compose/)
  E_DRAFT_UNKNOWN: entry<{ param: string; id: string; site: string }>(
    404,
    ({ param, id, site }) => `${param}: no draft or template ${id} on site ${site} (GET /api/v1/sites/${site}/drafts lists them)`,
  ),
  E_DRAFTS_MAX: entry<{ site: string; max: number }>(
    409,
    ({ site, max }) => `site ${site} keeps ${max} drafts and templates, the most it may: delete one first`,
  ),
  E_TEST_DEVICE_UNKNOWN: entry<{ param: string; id: string; site: string }>(
    404,
    ({ param, id, site }) => `${param}: no test device ${id} of yours on site ${site} (GET /api/v1/sites/${site}/test-devices lists them)`,
  ),
  E_TEST_DEVICES_MAX: entry<{ site: string; max: number }>(
    409,
    ({ site, max }) => `you have ${max} test devices on site ${site}, the most one member may: remove one first`,
  ),
  E_TEST_SEND_VARIANT: entry<{ param: string; variant: number; count: number }>(
    400,
    ({ param, variant, count }) =>
      `${param}: the message has ${count === 0 ? 'no A/B test' : `${count} variants`}, so there is no variant ${variant}`,
  ),
  E_TEST_SEND_KEY: entry<{ site: string; problem: string }>(
    409,
    ({ site, problem }) => `site ${site}'s current VAPID key cannot sign a test send: ${problem}`,
  ),
  E_FEED_SETTING: entry<{ entry: string }>(
    500,
    ({ entry }) => `allowed feed hosts: "${entry}" is not a host name or address, with an optional :port`,
  ),
  E_EVENT_RETENTION_SETTING: entry<{ value: string }>(
    500,
    ({ value }) => `event retention: "${value}" is not a number of days (a whole number from 1 to 36500)`,
  ),
  E_DELIVERY_RETENTION_SETTING: entry<{ value: string }>(
    500,
    ({ value }) => `PUSHKIT_DELIVERY_RETENTION_DAYS: "${value}" is not a number of days (a whole number from 0 to 99999)`,
  ),
  E_CLAIM_LEASE_SETTING: entry<{ value: string }>(
    500,
    ({ value }) => `PUSHKIT_CLAIM_LEASE_SECONDS: "${value}" is not a number of seconds (a whole number from 2 to 3600)`,
  ),
  E_STATE_NOT_PRIVATE: entry<{ path: string; mode: string; fix: string }>(
    500,
    ({ path, mode, fix }) =>
      `${path} is open to other users of this machine (mode ${mode}) and holds the provider's keys or database; run ${fix}`,
  ),
  E_LISTEN: entry<{ host: string; port: number; reason: string }>(
    500,
    ({ host, port, reason }) => `cannot listen on ${host}:${port}: ${reason}`,
  ),
} as const;

const CATALOGUE = defineCatalogue(SERVER_ERRORS);

export type ServerErrorCode = keyof typeof SERVER_ERRORS;
/** The details a code's template needs: none for a fixed message. */
export type ErrorDetails<C extends ServerErrorCode> = DetailsOf<typeof SERVER_ERRORS, C>;

export function serverErrorMessage<C extends ServerErrorCode>(code: C, ...details: ErrorDetails<C>): string {
  return CATALOGUE.message(code, ...details);
}

/** A failure of the provider named by a catalogue code: answered with its status, or stopping the caller. */
export class ServerError<C extends ServerErrorCode = ServerErrorCode> extends Error {
  readonly statusCode: number;
  /** What the message was filled with (a size, a host), for callers that act on it. */
  readonly details: ErrorDetails<C>[0];

  constructor(
    readonly code: C,
    ...details: ErrorDetails<C>
  ) {
    super(serverErrorMessage(code, ...details));
    this.name = 'ServerError';
    this.statusCode = SERVER_ERRORS[code].status;
    this.details = details[0];
  }

  /** The same failure, keeping the error that caused it (a driver's, the file system's) for logs and callers. */
  static causedBy<C extends ServerErrorCode>(cause: unknown, code: C, ...details: ErrorDetails<C>): ServerError<C> {
    const error = new ServerError(code, ...details);
    error.cause = cause;
    return error;
  }
}

/** The error and what caused it, nearest first (at most five deep: a cycle of causes ends too). */
export function* causeChain(error: unknown): Generator<unknown> {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) yield current;
}

/** Whether `error` is the catalogue's failure `code`. */
export function isServerError<C extends ServerErrorCode>(error: unknown, code: C): error is ServerError<C> {
  return error instanceof ServerError && error.code === code;
}
