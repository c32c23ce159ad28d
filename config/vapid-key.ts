import { createPublicKey } from 'node:crypto';

const URL_SAFE_BASE64 = /^[A-Za-z0-9_-]+={0,2}$/;

/** True when `value` is url-safe base64 of a 65-byte uncompressed point that lies on the P-256 curve. */
export function isP256PublicKey(value: string): boolean {
  if (!URL_SAFE_BASE64.test(value)) return false;
  const bytes = Buffer.from(value, 'base64url');
  if (bytes.length !== 65 || bytes[0] !== 0x04) return false;
  try {
    createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: bytes.subarray(1, 33).toString('base64url'), y: bytes.subarray(33).toString('base64url') },
      format: 'jwk',
    });
    return true;
  } catch {
    return false;
  }
}
