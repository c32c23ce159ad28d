// RFC 8291 message encryption for Web Push, in the RFC 8188 aes128gcm content coding: one record of 4096
// bytes, padding delimiter 0x02, the sender's ephemeral public key as the key id of the header.
import { createCipheriv, createECDH, createHmac, randomBytes, type ECDH } from 'node:crypto';
import { ServerError } from '../errors.ts';

export const RECORD_SIZE = 4096;
/** 4096 - 16 (GCM tag) - 1 (delimiter) - 86 (header): what one record can carry (RFC 8291 section 4). */
export const MAX_PAYLOAD_BYTES = RECORD_SIZE - 16 - 1 - 86;

export interface SubscriptionKeys {
  /** The subscription's uncompressed P-256 public key, url-safe base64. */
  p256dh: string;
  /** The subscription's 16-byte auth secret, url-safe base64. */
  auth: string;
}

/** Fixed randomness, only for reproducing published test vectors. */
export interface EncryptionRandomness {
  salt: Uint8Array;
  /** The sender's ephemeral private key (32 bytes). */
  senderPrivateKey: Uint8Array;
}

/** The catalogue's E_PAYLOAD_TOO_LARGE for a plaintext of `size` bytes. */
export const payloadTooLarge = (size: number) => new ServerError('E_PAYLOAD_TOO_LARGE', { size, limit: MAX_PAYLOAD_BYTES });

function hmac(key: Uint8Array, data: Uint8Array): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

function decodeKey(value: string, name: string, length: number): Buffer {
  const bytes = Buffer.from(value, 'base64url');
  if (bytes.length !== length) {
    throw new Error(`subscription key "${name}" must be ${length} bytes of url-safe base64, got ${bytes.length}`);
  }
  return bytes;
}

const KEY_INFO = Buffer.from('WebPush: info\0');
const ONE = Buffer.from([1]);
const CEK_INFO = Buffer.from('Content-Encoding: aes128gcm\0\x01');
const NONCE_INFO = Buffer.from('Content-Encoding: nonce\0\x01');
/** RFC 8188's padding delimiter of the last (only) record. */
const DELIMITER = 2;
/** Salt (16), record size (4), key id length (1), the sender's public key (65). */
const HEADER_SIZE = 86;

/** The P-256 context whose key pair is generated afresh for each message of this thread. */
let ephemeral: ECDH | undefined;

/**
 * Salts for this thread's messages, drawn from the CSPRNG a few hundred at a time (one call costs about as much as
 * one salt's share of a draw of 4 KB); each 16 bytes are used for one message only.
 */
let salts = Buffer.alloc(0);
let saltOffset = 0;
const SALT_DRAW = 16 * 256;

function freshSalt(): Buffer {
  if (saltOffset + 16 > salts.length) {
    salts = randomBytes(SALT_DRAW);
    saltOffset = 0;
  }
  saltOffset += 16;
  return salts.subarray(saltOffset - 16, saltOffset);
}

export function encryptPayload(payload: string | Uint8Array, keys: SubscriptionKeys, randomness?: EncryptionRandomness): Buffer {
  // the plaintext and RFC 8188's padding delimiter in one buffer, encrypted in one call
  const size = typeof payload === 'string' ? Buffer.byteLength(payload, 'utf8') : payload.length;
  if (size > MAX_PAYLOAD_BYTES) throw payloadTooLarge(size);
  const padded = Buffer.allocUnsafe(size + 1);
  if (typeof payload === 'string') padded.write(payload, 0, 'utf8');
  else padded.set(payload);
  padded[size] = DELIMITER;
  const uaPublic = decodeKey(keys.p256dh, 'p256dh', 65);
  if (uaPublic[0] !== 0x04) throw new Error('subscription key "p256dh" is not an uncompressed P-256 point');
  const authSecret = decodeKey(keys.auth, 'auth', 16);

  // A fresh key pair for every message (RFC 8291 section 3.1), from a P-256 context made once per thread: making
  // the context (the curve's tables) cost more than the key generation itself.
  let sender: ECDH;
  let asPublic: Buffer;
  if (randomness) {
    sender = createECDH('prime256v1');
    sender.setPrivateKey(randomness.senderPrivateKey);
    asPublic = sender.getPublicKey();
  } else {
    sender = ephemeral ??= createECDH('prime256v1');
    asPublic = sender.generateKeys();
  }
  const salt = randomness ? randomness.salt : freshSalt();
  const ecdhSecret = sender.computeSecret(uaPublic);

  // HKDF written out as RFC 8291 section 3.4 states it; each expand needs a single block.
  const prkKey = hmac(authSecret, ecdhSecret);
  const keyInfo = Buffer.concat([KEY_INFO, uaPublic, asPublic, ONE]);
  const ikm = hmac(prkKey, keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, CEK_INFO).subarray(0, 16);
  const nonce = hmac(prk, NONCE_INFO).subarray(0, 12);

  const cipher = createCipheriv('aes-128-gcm', cek, nonce);
  const encrypted = cipher.update(padded);
  cipher.final();

  // salt, record size, key id length, key id, ciphertext, tag: written into one buffer
  const body = Buffer.allocUnsafe(HEADER_SIZE + encrypted.length + 16);
  body.set(salt, 0);
  body.writeUInt32BE(RECORD_SIZE, 16);
  body[20] = asPublic.length;
  body.set(asPublic, 21);
  body.set(encrypted, HEADER_SIZE);
  body.set(cipher.getAuthTag(), HEADER_SIZE + encrypted.length);
  return body;
}
