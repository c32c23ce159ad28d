// RFC 8292 VAPID: an ES256 JWT per push-service origin, reused until shortly before it expires, so a
// campaign of a million messages signs a handful of tokens instead of a million.
import { createECDH, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { VapidKeyPair } from './vapid-keys.js';

const TOKEN_LIFETIME_SECONDS = 12 * 60 * 60;
/** A token is replaced this long before it expires, so none is in flight when it lapses. */
const RENEW_BEFORE_SECONDS = 10 * 60;

export function vapidPrivateKeyObject(keys: VapidKeyPair): KeyObject {
  const point = Buffer.from(keys.publicKey, 'base64url');
  if (point.length !== 65 || point[0] !== 0x04) {
    throw new Error('VAPID public key must be a 65-byte uncompressed P-256 point in url-safe base64');
  }
  if (Buffer.from(keys.privateKey, 'base64url').length !== 32) {
    throw new Error('VAPID private key must be 32 bytes of url-safe base64');
  }
  return createPrivateKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'P-256',
      d: keys.privateKey,
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
  });
}

/**
 * Why the pair cannot sign tokens a push service accepts, or undefined. Node signs even with a private key that
 * is not the public key's (or is no valid scalar at all), so the pair is checked here rather than at signing.
 */
export function vapidKeyPairProblem(keys: VapidKeyPair): string | undefined {
  try {
    vapidPrivateKeyObject(keys);
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(keys.privateKey, 'base64url'));
    if (!ecdh.getPublicKey().equals(Buffer.from(keys.publicKey, 'base64url'))) return "the VAPID private key is not the public key's";
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

export function signVapidJwt(privateKey: KeyObject, audience: string, subject: string, expiresAt: number): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signingInput = `${encode({ typ: 'JWT', alg: 'ES256' })}.${encode({ aud: audience, exp: expiresAt, sub: subject })}`;
  const signature = sign('sha256', Buffer.from(signingInput), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

function checkSubject(subject: string): void {
  if (!/^(mailto:|https:)/.test(subject)) {
    throw new Error(`VAPID subject must be a mailto: or https: URL, got "${subject}"`);
  }
}

interface CachedToken {
  header: string;
  expiresAt: number;
}

/** Builds `Authorization: vapid t=..., k=...` headers, caching one token per push-service origin. */
export class VapidAuthorizer {
  private readonly privateKey: KeyObject;
  private readonly tokens = new Map<string, CachedToken>();
  /** How many JWTs were signed; the cache makes this the number of origins, not of messages. */
  signedCount = 0;

  constructor(
    readonly keys: VapidKeyPair,
    readonly subject: string,
    private readonly now: () => number = Date.now,
  ) {
    checkSubject(subject);
    this.privateKey = vapidPrivateKeyObject(keys);
  }

  authorizationFor(endpoint: string): string {
    return this.authorizationForOrigin(new URL(endpoint).origin);
  }

  /** authorizationFor() of the push service's origin (`https://host[:port]`), the JWT's audience. */
  authorizationForOrigin(audience: string): string {
    const nowSeconds = Math.floor(this.now() / 1000);
    const cached = this.tokens.get(audience);
    if (cached && cached.expiresAt - RENEW_BEFORE_SECONDS > nowSeconds) return cached.header;
    const expiresAt = nowSeconds + TOKEN_LIFETIME_SECONDS;
    const jwt = signVapidJwt(this.privateKey, audience, this.subject, expiresAt);
    this.signedCount += 1;
    const header = `vapid t=${jwt}, k=${this.keys.publicKey}`;
    this.tokens.set(audience, { header, expiresAt });
    return header;
  }
}

const authorizers = new Map<string, VapidAuthorizer>();
let lastAuthorizer: VapidAuthorizer | undefined;

/** The shared authorizer of one key pair and subject, so tokens are reused across calls of sendPush. */
export function vapidAuthorizerFor(keys: VapidKeyPair, subject: string): VapidAuthorizer {
  // a campaign's messages ask with the same key pair object: no id string built per message
  if (lastAuthorizer?.keys === keys && lastAuthorizer.subject === subject) return lastAuthorizer;
  const id = `${keys.publicKey} ${subject}`;
  let authorizer = authorizers.get(id);
  if (!authorizer || authorizer.keys.privateKey !== keys.privateKey) {
    authorizer = new VapidAuthorizer(keys, subject);
    authorizers.set(id, authorizer);
  }
  lastAuthorizer = authorizer;
  return authorizer;
}
