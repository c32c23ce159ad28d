// Why a push did not go, in words an owner can act on and safe to store, show and log: the push service's own
// reason (Apple's `{"reason":"BadJwtToken"}`, FCM's or Mozilla's message, else its status text), or the class of
// a network error (`network: connection refused`). A reason is at most REASON_MAX_BYTES of UTF-8 on one line,
// and never holds a secret: the request's VAPID JWT and public key, the endpoint (whose path is the
// subscription's token) and anything shaped like a token are cut out, even when a push service echoes them.
import { STATUS_CODES } from 'node:http';

/** The longest reason kept (bytes of UTF-8). */
export const REASON_MAX_BYTES = 256;

const REDACTED = '[redacted]';

/** How much of a body is read for its reason: enough for any push service's error, never a whole page. */
const BODY_SCAN_CHARS = 4096;

/** Network error codes (Node, undici, OpenSSL) by the class an owner is told. */
const NETWORK_CLASSES: [RegExp, string][] = [
  [/^ECONNREFUSED$/, 'network: connection refused'],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NODATA|EAI_NONAME)$/, 'network: DNS'],
  [/^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/, 'network: TLS'],
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT)$/, 'network: timeout'],
  [/^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED|ECONNABORTED)$/, 'network: reset'],
  [/^(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN)$/, 'network: unreachable'],
];

/** The codes of an error and of its causes, outermost first. */
function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth += 1) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') codes.push(code);
    current = cause;
  }
  return codes;
}

/** `network: connection refused`, `network: DNS`, `network: TLS`, `network: timeout`, `network: reset`, ...; undefined when not a network error. */
export function networkReason(error: unknown): string | undefined {
  const codes = codesOf(error);
  for (const code of codes) {
    const match = NETWORK_CLASSES.find(([pattern]) => pattern.test(code));
    if (match) return match[1];
  }
  return undefined;
}

/** What a reason must never contain: the request's secrets, known to the sender. */
export interface ReasonSecrets {
  /** The subscription's endpoint: its path is the subscription's token. */
  endpoint?: string;
  /** The request's Authorization header (`vapid t=<JWT>, k=<public key>`). */
  authorization?: string;
}

/** The pieces of the secrets to cut out, longest first (a whole before its parts). */
function secretPieces(secrets: ReasonSecrets): string[] {
  const pieces = new Set<string>();
  if (secrets.authorization) {
    pieces.add(secrets.authorization);
    for (const part of secrets.authorization.split(/[\s,=]+/)) if (part.length >= 8) pieces.add(part);
    // a JWT's signature and claims each, should a push service quote one part
    for (const token of secrets.authorization.match(/[\w-]+\.[\w-]+\.[\w-]+/g) ?? []) {
      for (const part of token.split('.')) if (part.length >= 8) pieces.add(part);
    }
  }
  if (secrets.endpoint) {
    pieces.add(secrets.endpoint);
    try {
      const url = new URL(secrets.endpoint);
      if (url.pathname.length > 1) pieces.add(url.pathname + url.search);
      for (const segment of url.pathname.split('/')) if (segment.length >= 8) pieces.add(segment);
    } catch {
      // not a URL: the whole string is cut out, which is all there is
    }
  }
  return [...pieces].sort((a, b) => b.length - a.length);
}

/** Shapes of secrets whoever they belong to: JWTs, credentials after a scheme, long tokens. */
const SECRET_SHAPES: RegExp[] = [
  /eyJ[\w-]*\.[\w-]*\.?[\w-]*/g,
  /\b(vapid|bearer|webpush)\s+[^\s,;]+/gi,
  /\b(t|k)=[^\s,;]+/g,
  /[A-Za-z0-9_\-+/=]{32,}/g,
];

/** Cuts `bytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, bytes: number): string {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= bytes) return text;
  let end = bytes;
  // step back over continuation bytes (10xxxxxx) to the start of the character cut in half
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end -= 1;
  return encoded.subarray(0, end).toString('utf8');
}

/** One line, no control characters, no secret, at most REASON_MAX_BYTES. */
export function sanitizeReason(text: string, secrets: ReasonSecrets = {}): string {
  let clean = text.slice(0, BODY_SCAN_CHARS);
  for (const piece of secretPieces(secrets)) clean = clean.split(piece).join(REDACTED);
  // eslint-disable-next-line no-control-regex
  clean = clean.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
  for (const shape of SECRET_SHAPES) clean = clean.replace(shape, REDACTED);
  clean = clean.replace(/\s+/g, ' ').trim();
  return truncateUtf8(clean, REASON_MAX_BYTES);
}

/** A push service's reason in its answer body: a JSON `reason`, an error message, else the text itself. */
function bodyReason(body: string): string {
  const text = body.trim();
  if (text.startsWith('{')) {
    try {
      const json = JSON.parse(text) as Record<string, unknown>;
      const error = json.error;
      const candidates = [
        json.reason,
        typeof error === 'object' && error !== null ? (error as Record<string, unknown>).message : error,
        json.message,
      ];
      const found = candidates.find((value): value is string => typeof value === 'string' && value.trim() !== '');
      if (found) return found;
    } catch {
      // not JSON after all: the text is the reason
    }
  }
  return text;
}

/** The reason of an answer other than 201/202: the body's reason, else the status text ("Payload Too Large"). */
export function answerReason(statusCode: number, body: string, secrets: ReasonSecrets = {}): string {
  return sanitizeReason(bodyReason(body), secrets) || STATUS_CODES[statusCode] || `HTTP ${statusCode}`;
}

/** The reason of a request that got no answer: its network class, else its message (sanitised). */
export function errorReason(error: unknown, secrets: ReasonSecrets = {}): string {
  return networkReason(error) ?? (sanitizeReason(error instanceof Error ? error.message : String(error), secrets) || 'unknown error');
}
