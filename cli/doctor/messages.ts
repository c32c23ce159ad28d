// The findings of `push-kit doctor`, by code: the check they belong to (`id`, stable across releases: CI matches
// on it), pass / warn / fail, the message and the fix. README "push-kit doctor" lists the checks.
import { defineCatalogue, type DetailsOf } from '../../contract/catalogue.ts';

type Url = { url: string };
type Failed = { url: string; reason: string };
type Status = { url: string; status: number };

const JS_TYPE_FIX = 'serve .js files as text/javascript (nginx: the default mime.types; Apache: AddType text/javascript .js)';
/** The reports Apple's rule rests on (Apple documents only "a URL or mailto:"). */
const APPLE_REPORTS = 'github.com/web-push-libs/web-push/issues/947, github.com/alphastorm/omp-session-gateway/issues/173';
/** Why a subject is refused. */
const APPLE_SUBJECT_RULE =
  "Apple's push service answers 403 BadJwtToken to a token whose subject is not a mailto: address or https URL at a public host " +
  `(localhost, .local, .invalid, an address; ${APPLE_REPORTS}); other push services accept it, so only Safari and iOS subscribers miss every push`;

const findings = {
  CONFIG_INVALID: {
    id: 'config',
    status: 'fail',
    message: ({ file, problem }: { file: string; problem: string }) => `${file}: ${problem}`,
    fix: ({ file }: { file: string; problem: string }) =>
      `correct the config (push-kit validate ${file} lists every problem), build and deploy again`,
  },
  CONFIG_OK: { id: 'config', status: 'pass', message: ({ file }: { file: string }) => `${file} is valid` },
  CONFIG_WARNING: {
    id: 'config',
    status: 'warn',
    message: ({ file, problem }: { file: string; problem: string }) => `${file}: ${problem}`,
    fix: ({ file }: { file: string; problem: string }) =>
      `push-kit validate ${file} explains it; correct the config, build and deploy again`,
  },

  PAGE_OK: { id: 'page-snippet', status: 'pass', message: ({ url }: Url) => `${url} loads push.js and links the manifest` },
  PAGE_UNREACHABLE: {
    id: 'page-snippet',
    status: 'fail',
    message: ({ url, reason }: Failed) => `cannot load ${url}: ${reason}`,
    fix: () => "check the site's origin in the config and that the site is up",
  },
  PAGE_STATUS: {
    id: 'page-snippet',
    status: 'fail',
    message: ({ url, status }: Status) => `${url} answers HTTP ${status}`,
    fix: () => 'check the origin and includeUrls in the config: the doctor loads the home page and the literal paths of includeUrls',
  },
  PAGE_NO_SNIPPET: {
    id: 'page-snippet',
    status: 'fail',
    message: ({ url, pushJs }: { url: string; pushJs: string }) => `${url} has no <script src> loading ${pushJs}`,
    fix: () => "paste the site's snippet (<out>/<site>/snippet.html of push-kit build) into the page's <head>",
  },
  PAGE_NO_MANIFEST_LINK: {
    id: 'page-snippet',
    status: 'warn',
    message: ({ url, manifest }: { url: string; manifest: string }) => `${url} loads push.js but does not link ${manifest}`,
    fix: ({ manifest }: { url: string; manifest: string }) =>
      `add <link rel="manifest" href="${new URL(manifest).pathname}"> from the snippet: iOS home-screen apps and gcm_sender_id need it`,
  },

  PUSH_JS_OK: { id: 'push-js', status: 'pass', message: ({ url, how }: { url: string; how: string }) => `${url} is push.js: ${how}` },
  PUSH_JS_UNREACHABLE: {
    id: 'push-js',
    status: 'fail',
    message: ({ url, reason }: Failed) => `cannot load ${url}: ${reason}`,
    fix: () => 'serve the built push.js where the snippet loads it (the site root, or cdnUrl)',
  },
  PUSH_JS_STATUS: {
    id: 'push-js',
    status: 'fail',
    message: ({ url, status }: Status) => `${url} answers HTTP ${status}`,
    fix: ({ url }: Status) => `deploy <out>/<site>/push.js of push-kit build so that ${url} serves it`,
  },
  PUSH_JS_TYPE: {
    id: 'push-js',
    status: 'fail',
    message: ({ url, type }: { url: string; type: string }) => `${url} is served as ${type}, not JavaScript: browsers refuse to run it`,
    fix: () => JS_TYPE_FIX,
  },
  PUSH_JS_FOREIGN: {
    id: 'push-js',
    status: 'fail',
    message: ({ url, hash }: { url: string; hash: string }) => `${url} is not push-kit's push.js for this site (hash ${hash})`,
    fix: () => "deploy this site's <out>/<site>/push.js of push-kit build there",
  },
  PUSH_JS_STALE: {
    id: 'push-js',
    status: 'warn',
    message: ({ url, built }: { url: string; built: string }) =>
      `${url} is this site's push.js but differs from ${built}: another build is deployed`,
    fix: ({ built }: { url: string; built: string }) =>
      `deploy ${built} (and the other files beside it), or build again if the config changed`,
  },

  MANIFEST_OK: { id: 'manifest', status: 'pass', message: ({ url }: Url) => `${url} is a JSON manifest` },
  MANIFEST_UNREACHABLE: {
    id: 'manifest',
    status: 'fail',
    message: ({ url, reason }: Failed) => `cannot load ${url}: ${reason}`,
    fix: () => "serve the built manifest.json at the config's manifestUrl",
  },
  MANIFEST_STATUS: {
    id: 'manifest',
    status: 'fail',
    message: ({ url, status }: Status) => `${url} answers HTTP ${status}`,
    fix: () => "deploy <out>/<site>/manifest.json of push-kit build at the config's manifestUrl",
  },
  MANIFEST_JSON: {
    id: 'manifest',
    status: 'fail',
    message: ({ url, reason }: Failed) => `${url} is not a JSON manifest: ${reason}`,
    fix: () => "deploy <out>/<site>/manifest.json of push-kit build at the config's manifestUrl",
  },
  MANIFEST_SENDER_ID: {
    id: 'manifest',
    status: 'fail',
    message: ({ url, expected, found }: { url: string; expected: string; found: string }) =>
      `${url} has gcm_sender_id ${found}, the config's gcmSenderId is "${expected}"`,
    fix: () => 'deploy the manifest.json push-kit build wrote from this config',
  },

  SW_OK: { id: 'service-worker', status: 'pass', message: ({ url, type }: { url: string; type: string }) => `${url} is served as ${type}` },
  SW_CHILD_WINDOW: {
    id: 'service-worker',
    status: 'pass',
    message: ({ origin }: { origin: string }) => `${origin} is plain http: its worker lives in the child window, on the provider`,
  },
  SW_UNREACHABLE: {
    id: 'service-worker',
    status: 'fail',
    message: ({ url, reason }: Failed) => `cannot load ${url}: ${reason}`,
    fix: () => "serve the site's worker at the config's swPath",
  },
  SW_REDIRECT: {
    id: 'service-worker',
    status: 'fail',
    message: ({ url, status, location }: { url: string; status: number; location: string }) =>
      `${url} redirects (HTTP ${status} to ${location}): browsers refuse a redirected service worker script`,
    fix: () => 'serve the worker itself at swPath, with no redirect (http to https, a trailing slash, a CDN rule)',
  },
  SW_STATUS: {
    id: 'service-worker',
    status: 'fail',
    message: ({ url, status }: { url: string; status: number; swPath: string }) => `${url} answers HTTP ${status}`,
    fix: ({ swPath }: { url: string; status: number; swPath: string }) =>
      `deploy <out>/<site>/sw.js at ${swPath} (or set swPath to the site's own worker, docs/service-workers.md)`,
  },
  SW_TYPE: {
    id: 'service-worker',
    status: 'fail',
    message: ({ url, type }: { url: string; type: string; swPath: string }) =>
      `${url} is served as ${type}: browsers register a service worker only from a JavaScript type (text/javascript)`,
    fix: () => JS_TYPE_FIX,
  },
  SW_SCOPE_OK: {
    id: 'service-worker-scope',
    status: 'pass',
    message: ({ scope, how }: { scope: string; how: string }) => `scope ${scope} is allowed: ${how}`,
  },
  SW_SCOPE: {
    id: 'service-worker-scope',
    status: 'fail',
    message: ({ url, scope, folder, allowed }: { url: string; scope: string; folder: string; allowed?: string; swPath: string }) =>
      `swScope ${scope} is wider than the folder of ${url} (${folder}) and the answer has ${
        allowed === undefined ? 'no Service-Worker-Allowed header' : `Service-Worker-Allowed: ${allowed}`
      }: registering it fails`,
    fix: ({ scope, folder, swPath }: { url: string; scope: string; folder: string; allowed?: string; swPath: string }) =>
      `send "Service-Worker-Allowed: ${scope}" with ${swPath}, or set swScope to ${folder} (or below)`,
  },
  SW_OWNER_OK: {
    id: 'service-worker-owner',
    status: 'pass',
    message: ({ url, how }: { url: string; how: string }) => `${url} is push-kit's worker: ${how}`,
  },
  SW_STALE: {
    id: 'service-worker-owner',
    status: 'warn',
    message: ({ url, built }: { url: string; built: string }) =>
      `${url} is push-kit's worker but differs from ${built}: another build is deployed`,
    fix: ({ built }: { url: string; built: string }) => `deploy ${built} (and the other files beside it)`,
  },
  SW_FOREIGN: {
    id: 'service-worker-owner',
    status: 'fail',
    message: ({ url, library }: { url: string; library: string; swPath: string }) =>
      `${url} is ${library}'s worker and does not import push-kit-sw.js: a scope has one worker, so push-kit's push handlers never run`,
    fix: ({ swPath }: { url: string; library: string; swPath: string }) =>
      `add importScripts('/push-kit-sw.js'); at the top of ${swPath} and serve the build's push-kit-sw.js at /push-kit-sw.js (docs/service-workers.md, set-up 2)`,
  },
  SW_NOT_PUSH_KIT: {
    id: 'service-worker-owner',
    status: 'fail',
    message: ({ url }: { url: string; swPath: string }) => `${url} is neither push-kit's sw.js nor a worker that imports push-kit-sw.js`,
    fix: ({ swPath }: { url: string; swPath: string }) =>
      `deploy <out>/<site>/sw.js at ${swPath}, or add importScripts('/push-kit-sw.js'); at the top of the site's own worker there`,
  },
  SW_IMPORT_BROKEN: {
    id: 'service-worker-owner',
    status: 'fail',
    message: ({ url, imported, problem }: { url: string; imported: string; problem: string }) =>
      `${url} imports ${imported}, which fails: ${problem}`,
    fix: ({ imported }: { url: string; imported: string; problem: string }) =>
      `deploy this site's <out>/<site>/push-kit-sw.js at ${new URL(imported).pathname}, served as text/javascript`,
  },

  PROVIDER_OK: { id: 'provider', status: 'pass', message: ({ url }: Url) => `${url} answers` },
  PROVIDER_UNREACHABLE: {
    id: 'provider',
    status: 'fail',
    message: ({ url, reason }: Failed) => `cannot reach the provider at ${url}: ${reason}`,
    fix: () => 'start the provider (push-kit serve) where serverSyncUrl points, or correct serverSyncUrl',
  },
  PROVIDER_STATUS: {
    id: 'provider',
    status: 'fail',
    message: ({ url, status }: Status) => `${url} answers HTTP ${status}, not the provider's health reply`,
    fix: () => 'point serverSyncUrl at the provider (push-kit serve), or route that URL to it in the proxy',
  },
  PROVIDER_HTTPS_OK: {
    id: 'provider-https',
    status: 'pass',
    message: ({ origin, url }: { origin: string; url: string }) => `${origin} may call ${url} (no mixed content)`,
  },
  PROVIDER_HTTP: {
    id: 'provider-https',
    status: 'fail',
    message: ({ origin, url }: { origin: string; url: string }) =>
      `${origin} is https but the provider ${url} is plain http: browsers block the calls as mixed content`,
    fix: () => 'serve the provider over https (a TLS proxy in front of push-kit serve) and set serverSyncUrl to its https URL',
  },
  PROVIDER_REDIRECTS_TO_HTTP: {
    id: 'provider-https',
    status: 'fail',
    message: ({ origin, url, to }: { origin: string; url: string; to: string }) =>
      `${url} redirects to ${to}: ${origin} is https, so browsers block the calls as mixed content`,
    fix: () => "remove the proxy's redirect to http (it should keep https, X-Forwarded-Proto)",
  },
  CORS_OK: {
    id: 'provider-cors',
    status: 'pass',
    message: ({ url, origin }: { url: string; origin: string }) => `${url} allows ${origin} (CORS preflight)`,
  },
  CORS_SAME_ORIGIN: {
    id: 'provider-cors',
    status: 'pass',
    message: ({ provider }: { provider: string }) => `the child window calls ${provider} from its own origin: no CORS needed`,
  },
  CORS_UNREACHABLE: {
    id: 'provider-cors',
    status: 'fail',
    message: ({ url, reason }: Failed) => `the CORS preflight to ${url} got no answer: ${reason}`,
    fix: () => 'let OPTIONS requests through to the provider',
  },
  CORS_MISSING: {
    id: 'provider-cors',
    status: 'fail',
    message: ({ url, origin, status, allowed }: { url: string; origin: string; status: number; allowed?: string }) =>
      `the CORS preflight to ${url} from ${origin} answers HTTP ${status} with ${
        allowed === undefined ? 'no Access-Control-Allow-Origin' : `Access-Control-Allow-Origin: ${allowed}`
      }: browsers refuse the site's subscription sync`,
    fix: ({ origin }: { url: string; origin: string; status: number; allowed?: string }) =>
      `host this config on the provider (push-kit serve --sites) with origin ${origin}, and let the proxy pass OPTIONS and the Origin header`,
  },
  CLOCK_OK: { id: 'clock', status: 'pass', message: ({ url, skew }: { url: string; skew: string }) => `the clock of ${url} is ${skew}` },
  CLOCK_SKEW: {
    id: 'clock',
    status: 'warn',
    message: ({ url, skew }: { url: string; skew: string }) => `the clock of ${url} is ${skew} (more than 5 minutes)`,
    fix: () => 'synchronise both clocks (NTP: timedatectl set-ntp true): push services refuse tokens that expire too late or have expired',
  },
  CLOCK_UNKNOWN: {
    id: 'clock',
    status: 'warn',
    message: ({ url }: Url) => `${url} sent no Date header: the provider's clock is unknown`,
    fix: () => 'let the proxy pass the Date header',
  },

  KEY_FILE_OK: { id: 'vapid-key-file', status: 'pass', message: ({ file }: { file: string }) => `${file} is private to this user` },
  KEY_FILE_MISSING: {
    id: 'vapid-key-file',
    status: 'fail',
    message: ({ file }: { file: string }) => `${file} does not exist: the provider cannot sign this site's pushes`,
    fix: () => 'run the doctor in the folder push-kit serve runs in, and copy the key file push-kit init wrote there (mode 0600)',
  },
  KEY_FILE_READ: {
    id: 'vapid-key-file',
    status: 'fail',
    message: ({ file, reason }: { file: string; reason: string }) => `cannot read ${file}: ${reason}`,
    fix: () => 'restore the key file push-kit init wrote ({"publicKey", "privateKey"}), mode 0600',
  },
  KEY_FILE_OPEN: {
    id: 'vapid-key-file',
    status: 'fail',
    message: ({ file, mode }: { file: string; mode: string }) =>
      `${file} is open to other users of this machine (mode ${mode}): it holds the site's VAPID private key`,
    fix: ({ file }: { file: string; mode: string }) => `chmod 600 ${file}`,
  },
  KEY_FILE_OWNER: {
    id: 'vapid-key-file',
    status: 'fail',
    message: ({ file, owner, user }: { file: string; owner: number; user: number }) =>
      `${file} belongs to user ${owner}, not to this user (${user}) who runs the provider`,
    fix: ({ file }: { file: string; owner: number; user: number }) => `chown $(id -u) ${file} (as the user push-kit serve runs as)`,
  },
  KEY_OK: {
    id: 'vapid-key',
    status: 'pass',
    message: ({ file }: { file: string }) => `${file} holds the private key of the config's vapidPublicKey`,
  },
  KEY_PAIR_BROKEN: {
    id: 'vapid-key',
    status: 'fail',
    message: ({ file, problem }: { file: string; problem: string }) => `${file}: ${problem}`,
    fix: () => 'restore the key file push-kit init wrote for this site',
  },
  KEY_MISMATCH: {
    id: 'vapid-key',
    status: 'fail',
    message: ({ file, config }: { file: string; config: string; fileKey: string }) =>
      `${file} is not the key pair of ${config}'s vapidPublicKey: push services refuse the pushes it signs`,
    fix: ({ config, fileKey }: { file: string; config: string; fileKey: string }) =>
      `restore the key file of the config's key, or, for a site with no subscribers yet, set vapidPublicKey in ${config} to ${fileKey} and build again`,
  },
  SUBJECT_OK: {
    id: 'vapid-subject',
    status: 'pass',
    message: ({ subject }: { subject: string }) => `VAPID subject ${subject} is one Apple accepts`,
  },
  SUBJECT_REFUSED: {
    id: 'vapid-subject',
    status: 'fail',
    message: ({ subject, derived }: { subject: string; derived: boolean }) =>
      `VAPID subject ${subject}${derived ? ' (derived from the origin: the config sets no vapidSubject)' : ''} is refused: ${APPLE_SUBJECT_RULE}`,
    fix: () => 'set vapidSubject to a mailto: address or https URL at a public domain you read, e.g. "mailto:push@your-company.com"',
  },
  CONFIG_SUBJECT: {
    id: 'vapid-subject',
    status: 'fail',
    message: ({ file, problem }: { file: string; problem: string }) => `${file}: vapidSubject: ${problem} (${APPLE_REPORTS})`,
    fix: () => 'set vapidSubject to a mailto: address or https URL at a public domain you read, e.g. "mailto:push@your-company.com"',
  },
  CONFIG_MIXED_CONTENT: {
    id: 'provider-https',
    status: 'fail',
    message: ({ file, field, problem }: { file: string; field: string; problem: string }) => `${file}: ${field}: ${problem}`,
    fix: ({ field }: { file: string; field: string; problem: string }) =>
      `serve the provider over https (a TLS proxy in front of push-kit serve) and set ${field} to its https URL`,
  },
  TOKEN_OK: {
    id: 'vapid-token',
    status: 'pass',
    message: ({ hours, clock }: { hours: number; clock: string }) =>
      `a VAPID token signed now by ${clock} expires in ${hours} h (24 h at most)`,
  },
  TOKEN_EXPIRY: {
    id: 'vapid-token',
    status: 'fail',
    message: ({ hours, clock }: { hours: number; clock: string }) =>
      `a VAPID token signed now by ${clock} expires in ${hours} h by this machine's: push services refuse a token that has expired or lives longer than 24 h`,
    fix: () => "synchronise the provider's clock (NTP: timedatectl set-ntp true)",
  },
  TOKEN_UNSIGNABLE: {
    id: 'vapid-token',
    status: 'fail',
    message: ({ reason }: { reason: string }) => `cannot sign a VAPID token with the key file: ${reason}`,
    fix: () => 'restore the key file push-kit init wrote for this site',
  },
  STATE_OK: { id: 'state-private', status: 'pass', message: ({ dir }: { dir: string }) => `${dir} is private to this user` },
  STATE_ABSENT: {
    id: 'state-private',
    status: 'warn',
    message: ({ dir }: { dir: string }) => `there is no ${dir} folder here: the provider's keys and database are elsewhere`,
    fix: () => 'run the doctor in the folder push-kit serve runs in',
  },
  STATE_OPEN: {
    id: 'state-private',
    status: 'fail',
    message: ({ path, mode }: { path: string; mode: string; fix: string }) =>
      `${path} is open to other users of this machine (mode ${mode}): push-kit serve refuses to start`,
    fix: ({ fix }: { path: string; mode: string; fix: string }) => fix,
  },
  STATE_READ: {
    id: 'state-private',
    status: 'fail',
    message: ({ dir, reason }: { dir: string; reason: string }) => `cannot read ${dir}: ${reason}`,
    fix: () => 'run the doctor as the user push-kit serve runs as, in its folder',
  },
} satisfies Record<
  string,
  { id: string; status: 'pass' | 'warn' | 'fail'; message: (details: never) => string; fix?: (details: never) => string }
>;

export const DOCTOR_FINDINGS = defineCatalogue(findings);
export type DoctorCode = keyof typeof findings;
export type FindingDetails<C extends DoctorCode> = DetailsOf<typeof findings, C>;
