// One Web Push request (RFC 8030) over a keep-alive connection pool per push-service origin, only to an
// allowed push service (server/push/push-services.ts) and, unless its origin is listed explicitly, only to a
// public address: the check runs on the address the connection is actually made to, so a name that resolves
// to a public address when checked and to a private one when connecting (DNS rebinding) gets nowhere.
import { lookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isServerError, ServerError } from '../errors.ts';
import type { Agent, Dispatcher } from 'undici';
import { undici } from '../undici.ts';
import type { VapidKeyPair } from './vapid-keys.js';
import { encryptPayload, type SubscriptionKeys } from './encrypt.js';
import { closeSharedEncryptionPool, type EncryptionPool } from './encryption-pool.ts';
import { vapidAuthorizerFor } from './vapid.js';
import { MAX_TTL_SECONDS } from '../../contract/campaign-limits.ts';
import { URGENCIES, type Urgency } from '../../contract/urgency.ts';
import { isPrivateAddress, PushServiceAllowlist } from './push-services.ts';
import { answerReason } from './push-failure.ts';

export interface PushSubscriptionTarget {
  endpoint: string;
  keys: SubscriptionKeys;
}

export interface SendPushOptions {
  vapid: VapidKeyPair;
  /** `mailto:` or `https:` contact of the sender (RFC 8292 `sub`). */
  subject: string;
  /** Seconds the push service keeps an undelivered message; default 4 weeks. */
  ttl?: number;
  urgency?: Urgency;
  topic?: string;
  /** Extra trusted CA certificate(s) in PEM, for a push service with a private certificate. */
  ca?: string | string[];
  /** Where pushes may go; default: `PUSHKIT_PUSH_SERVICES`, else the known push services. */
  pushServices?: PushServiceAllowlist;
  /** Offer HTTP/2 (ALPN) to the push service, else keep-alive HTTP/1.1 only (the default: bench/README.md). */
  http2?: boolean;
  /** Encrypts off the main thread (server/push/encryption-pool.ts); default: in this thread. */
  encryptor?: Pick<EncryptionPool, 'encrypt'>;
}

/**
 * What a push came to. `reason`: why it did not go, safe to keep and show (server/push/push-failure.ts: the push
 * service's reason or the status text, at most 256 bytes, no secret); `detail`: the status and that reason.
 */
export type PushResult =
  | { outcome: 'delivered'; statusCode: number }
  | { outcome: 'expired'; statusCode: number; detail: string; reason: string }
  | { outcome: 'retry'; statusCode: number; detail: string; reason: string; retryAfterMs?: number }
  | { outcome: 'failed'; statusCode: number; detail: string; reason: string };

/** A refusal before any request (statusCode 0): not an allowed push service, a private address. */
const refusedBeforeSending = (reason: string): PushResult => ({ outcome: 'failed', statusCode: 0, detail: reason, reason });

/** Without a TTL the push service keeps the message as long as any keeps one. */
const DEFAULT_TTL_SECONDS = MAX_TTL_SECONDS;

const agents = new Map<string, Agent>();

/** A connection refused because the push service's address is loopback, private or link-local. */
const privateAddress = (host: string, address: string) => new ServerError('E_PUSH_ADDRESS_PRIVATE', { host, address });

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup, failing when any address the name resolves to is private. */
function publicAddressLookup(hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find(({ address }) => isPrivateAddress(address));
    if (refused) return callback(privateAddress(hostname, refused.address), []);
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}

// undici's Agent keeps one keep-alive Pool per origin; one Agent per trust setting, address rule and protocol.
function agentFor(ca: string | string[] | undefined, privateAllowed: boolean, http2: boolean): Agent {
  // A campaign asks with the same settings for each of its messages: its agent is kept at hand, so that the id (which
  // holds the CA's PEM text) is not built and hashed per message.
  if (lastAgent && lastAgent.ca === ca && lastAgent.privateAllowed === privateAllowed && lastAgent.http2 === http2) return lastAgent.agent;
  const id = `${privateAllowed ? 'any' : 'public'}\n${http2 ? 'h2' : 'h1'}\n${ca === undefined ? '' : [ca].flat().join('\n')}`;
  let agent = agents.get(id);
  if (!agent) {
    agent = new (undici().Agent)({
      connections: 256,
      keepAliveTimeout: 30_000,
      allowH2: http2,
      connect: { ...(ca === undefined ? {} : { ca }), ...(privateAllowed ? {} : { lookup: publicAddressLookup }) },
    });
    agents.set(id, agent);
  }
  lastAgent = { ca, privateAllowed, http2, agent };
  return agent;
}

let lastAgent: { ca: string | string[] | undefined; privateAllowed: boolean; http2: boolean; agent: Agent } | undefined;

/** Closes the connection pools and the encryption threads; for tests and a clean process exit. */
export async function closePushConnections(): Promise<void> {
  const open = [...agents.values()];
  agents.clear();
  lastAgent = undefined;
  await Promise.all([...open.map((agent) => agent.close()), closeSharedEncryptionPool()]);
}

/** Retry-After as seconds or an HTTP date (RFC 9110 section 10.2.3), in milliseconds from now. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function validateOptions(options: SendPushOptions): void {
  if (options.ttl !== undefined && (!Number.isInteger(options.ttl) || options.ttl < 0)) {
    throw new Error(`push TTL must be a whole number of seconds >= 0, got ${options.ttl}`);
  }
  if (options.urgency !== undefined && !URGENCIES.includes(options.urgency)) {
    throw new Error(`push urgency must be one of ${URGENCIES.join(', ')}, got "${options.urgency}"`);
  }
  // RFC 8030 section 5.4: at most 32 characters of the url-safe base64 alphabet.
  if (options.topic !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(options.topic)) {
    throw new Error(`push topic must be 1-32 url-safe base64 characters, got "${options.topic}"`);
  }
}

/** What a push service answered: the status, and for a refusal its Retry-After and body (a delivered push's is dropped). */
interface PushAnswer {
  statusCode: number;
  retryAfter?: string;
  body?: string;
}

/**
 * undici's dispatch handler of one push: it keeps the status, and only for a push that did not go the Retry-After and
 * the body. undici's `request()` made an async resource, a readable stream for the body and a headers object per
 * message, which a push service's answer (201 and an empty body) does not need.
 */
class PushAnswerHandler implements Dispatcher.DispatchHandler {
  private statusCode = 0;
  private retryAfter: string | undefined;
  private chunks: Buffer[] | undefined;

  constructor(
    private readonly resolve: (answer: PushAnswer) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  onConnect(): void {}

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // an informational answer (1xx) is followed by the real one
    if (statusCode < 200) return true;
    this.statusCode = statusCode;
    if (statusCode === 201 || statusCode === 202) return true;
    this.chunks = [];
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      if (rawHeaders[i]!.length === 11 && rawHeaders[i]!.toString('latin1').toLowerCase() === 'retry-after') {
        this.retryAfter = rawHeaders[i + 1]!.toString('latin1');
        break;
      }
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks?.push(chunk);
    return true;
  }

  onComplete(): void {
    this.resolve(
      this.chunks === undefined
        ? { statusCode: this.statusCode }
        : { statusCode: this.statusCode, retryAfter: this.retryAfter, body: Buffer.concat(this.chunks).toString('utf8') },
    );
  }

  onError(error: Error): void {
    this.reject(error);
  }
}

function post(agent: Agent, url: URL, headers: Record<string, string>, body: Buffer): Promise<PushAnswer> {
  return new Promise((resolve, reject) => {
    agent.dispatch(
      { origin: url.origin, path: url.pathname + url.search, method: 'POST', headers, body },
      new PushAnswerHandler(resolve, reject),
    );
  });
}

export async function sendPush(
  subscription: PushSubscriptionTarget,
  payload: string | Uint8Array,
  options: SendPushOptions,
): Promise<PushResult> {
  validateOptions(options);
  const url = new URL(subscription.endpoint);
  if (url.protocol !== 'https:') throw new Error(`push endpoint must be https, got ${subscription.endpoint}`);
  const services = options.pushServices ?? PushServiceAllowlist.fromEnvironment();
  if (!services.allowsUrl(url)) {
    return refusedBeforeSending(`push service ${url.origin} is not an allowed push service`);
  }
  const privateAllowed = services.allowsPrivateAddress(url);
  // An address in the URL itself is never looked up, so the connection's lookup cannot check it.
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!privateAllowed && isIP(literal) && isPrivateAddress(literal)) {
    return refusedBeforeSending(privateAddress(url.hostname, literal).message);
  }
  const body = options.encryptor ? await options.encryptor.encrypt(payload, subscription.keys) : encryptPayload(payload, subscription.keys);
  const headers: Record<string, string> = {
    authorization: vapidAuthorizerFor(options.vapid, options.subject).authorizationForOrigin(url.origin),
    'content-encoding': 'aes128gcm',
    'content-type': 'application/octet-stream',
    ttl: String(options.ttl ?? DEFAULT_TTL_SECONDS),
  };
  if (options.urgency) headers.urgency = options.urgency;
  if (options.topic) headers.topic = options.topic;

  let answer: PushAnswer;
  try {
    answer = await post(agentFor(options.ca, privateAllowed, options.http2 ?? false), url, headers, body);
  } catch (error) {
    if (isServerError(error, 'E_PUSH_ADDRESS_PRIVATE')) return refusedBeforeSending(error.message);
    throw error;
  }
  const statusCode = answer.statusCode;
  if (statusCode === 201 || statusCode === 202) return { outcome: 'delivered', statusCode };
  // A push service may quote the request (its JWT, the endpoint): the reason is kept without them.
  const reason = answerReason(statusCode, answer.body ?? '', {
    endpoint: subscription.endpoint,
    authorization: headers.authorization,
  });
  const detail = `${statusCode}: ${reason}`;
  if (statusCode === 404 || statusCode === 410) return { outcome: 'expired', statusCode, detail, reason };
  if (statusCode === 429 || statusCode >= 500) {
    const retryAfterMs = parseRetryAfter(answer.retryAfter);
    return retryAfterMs === undefined
      ? { outcome: 'retry', statusCode, detail, reason }
      : { outcome: 'retry', statusCode, detail, reason, retryAfterMs };
  }
  return { outcome: 'failed', statusCode, detail, reason };
}
