// The config layer's error catalogue (as Workbox keys its messages): every problem a site config file can have,
// by a stable code that tests and tools match on, with its message. Printed as `FILE: field.path: message`.
import { formatConditionError, type ConditionError } from '../contract/conditions.ts';
import type { UrlPatternProblem } from '../compiler/errors.ts';
import { defineCatalogue, type DetailsOf } from '../contract/catalogue.ts';

const messages = {
  E_CONFIG_NOT_FOUND: () => 'file not found',
  E_CONFIG_READ: ({ reason }: { reason: string }) => reason,
  E_CONFIG_JSON: ({ at, reason }: { at?: string; reason: string }) =>
    at === undefined ? `invalid JSON: ${reason}` : `invalid JSON at ${at}: ${reason}`,
  E_CONFIG_UNKNOWN_FIELD: () => 'unknown field',
  E_CONFIG_MISSING_FIELD: ({ expected }: { expected: string }) => `required field is missing (expected ${expected})`,
  /** Any other rule of the schema (config/schema.ts states it). */
  E_CONFIG_FIELD: ({ rule }: { rule: string }) => rule,
  E_VAPID_KEY: () => 'must be url-safe base64 of a 65-byte uncompressed P-256 public key',
  E_VAPID_SUBJECT: () =>
    "must be a mailto: address or an https: URL at a public host name (e.g. mailto:owner@yourshop.com or https://yourshop.com/contact): Apple's push service refuses every push whose VAPID subject is not one (BadJwtToken)",
  E_URL_PATTERN: ({ problem }: { problem: UrlPatternProblem }) => problem.message,
  E_CONDITION: ({ error }: { error: ConditionError }) => formatConditionError(error),
  E_TRIGGER: ({ error }: { error: ConditionError }) => formatConditionError(error),
  E_SAFARI_WEB_SERVICE_URL: () =>
    "is required with safariWebsitePushId: the https URL where the site serves the push package service of Safari's legacy push (the provider does not serve it)",
  /** An https page may not call an http URL: the browser blocks every such call as mixed content. */
  E_MIXED_CONTENT: ({ origin }: { origin: string }) =>
    `must be an https URL: the site's origin ${origin} is https, and the browser blocks every http call from its pages as mixed content`,
  E_IOS_ICON: () => 'is required when iosHomeScreen.enabled is true: the home-screen app needs an icon (manifest.json icons)',
  /** Across files: the provider knows a site by its hash, so `serve` hosts only the first of two that share one. */
  E_DUPLICATE_HASH: ({ hash, first }: { hash: string; first: string }) =>
    `"${hash}" is also the hash of ${first}: the provider knows a site by its hash, so serve would host only one of them`,
  /** Across files: a site is named by its config file's base name (its build folder, `send --site NAME`). */
  E_DUPLICATE_NAME: ({ name, first }: { name: string; first: string }) =>
    `${first} is also named "${name}" (the file's base name): build writes both into one folder <out>/${name}, and serve hosts only one`,
  /** Across files: two http sites on one child window origin would share its browser state (issue 17, item 6). */
  E_SHARED_CHILD_WINDOW_ORIGIN: ({ origin, first }: { origin: string; first: string }) =>
    `"${origin}" is already the child window origin of ${first}`,
  /** A warning: Safari's legacy push needs a service push-kit's provider does not run (README, "Safari"). */
  W_SAFARI_LEGACY_ELSEWHERE: ({ url, id }: { url: string; id: string }) =>
    `Safari's legacy push (macOS Safari before 16) asks ${url}/v2/pushPackages/${id} for a signed push package and reports devices to ${url}/v2/devices/... and ${url}/v2/log: the push-kit provider serves none of these (nor sends through APNs), so the site must host them there; Safari 16+ uses standard Web Push and needs none of it`,
  /** A warning: spec section 5 reads such a field as an empty list. */
  W_SEGMENTATIONS_JSON: () => 'is a string that is not valid JSON: read as an empty list',
  /** A warning: pushes to Safari and iOS would be refused (BadJwtToken) without a subject Apple accepts. */
  W_VAPID_SUBJECT_DERIVED: ({ subject }: { subject: string }) =>
    `is not set, and the subject derived from the origin (${subject}) is not one Apple's push service accepts: pushes to Safari and iOS would be refused; set a mailto: address or an https URL at a public host name`,
  /** A warning: the provider fetches such a feed only for a host `serve --allow-feed-hosts` lists (docs/feeds.md). */
  W_FEED_NEEDS_LISTING: ({ why, host }: { why: string; host: string }) =>
    `${why}: the provider refuses it unless push-kit serve --allow-feed-hosts lists ${host}`,
  /** A warning: a plain-http site without an origin of its own for its child window (issue 17, item 6). */
  W_CHILD_WINDOW_SHARED_ORIGIN: () =>
    "is not set: this http site's child window shares the provider's origin with every other http site (permission, subscriber id and opt-out cross between them); set an origin of its own",
};

const CONFIG_ERRORS = defineCatalogue(messages);

export type ConfigErrorCode = keyof typeof messages;

/** One problem of a config: its catalogue code, the dotted field path (`(file)` for the file itself) and the message. */
export interface ConfigProblem {
  code: ConfigErrorCode;
  /** Dotted field path (`style.iconUrl`, `includeUrls.2`), or `(file)` for problems with the file itself. */
  path: string;
  message: string;
}

export function configMessage<C extends ConfigErrorCode>(code: C, ...details: DetailsOf<typeof messages, C>): string {
  return CONFIG_ERRORS.message(code, ...details);
}

export function configProblem<C extends ConfigErrorCode>(code: C, path: string, ...details: DetailsOf<typeof messages, C>): ConfigProblem {
  return { code, path, message: configMessage(code, ...details) };
}

/** The printed form, a contract: `FILE: field.path: message`. */
export function formatProblem(file: string, problem: Pick<ConfigProblem, 'path' | 'message'>): string {
  return `${file}: ${problem.path}: ${problem.message}`;
}
