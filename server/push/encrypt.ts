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
const DELIMITER = Buffer.from([2]);

/** The P-256 context whose key pair is generated afresh for each message of this thread. */
let ephemeral: ECDH | undefined;

export function encryptPayload(payload: string | Uint8Array, keys: SubscriptionKeys, randomness?: EncryptionRandomness): Buffer {
  const plaintext = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);
  if (plaintext.length > MAX_PAYLOAD_BYTES) throw payloadTooLarge(plaintext.length);
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
  const salt = randomness ? Buffer.from(randomness.salt) : randomBytes(16);
  const ecdhSecret = sender.computeSecret(uaPublic);

  // HKDF written out as RFC 8291 section 3.4 states it; each expand needs a single block.
  const prkKey = hmac(authSecret, ecdhSecret);
  const keyInfo = Buffer.concat([KEY_INFO, uaPublic, asPublic, ONE]);
  const ikm = hmac(prkKey, keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, CEK_INFO).subarray(0, 16);
  const nonce = hmac(prk, NONCE_INFO).subarray(0, 12);

  const cipher = createCipheriv('aes-128-gcm', cek, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.update(DELIMITER), cipher.final(), cipher.getAuthTag()]);

  const header = Buffer.alloc(21);
  salt.copy(header, 0);
  header.writeUInt32BE(RECORD_SIZE, 16);
  header[20] = asPublic.length;
  return Buffer.concat([header, asPublic, ciphertext]);
}
