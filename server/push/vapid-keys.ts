// A site's VAPID key pair (RFC 8292): the public key goes into the site config, the private key lives only
// in `.push-kit/keys/<name>.json` (mode 0600, server/state-paths.ts) and is read by the sender.
import { generateKeyPairSync } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface VapidKeyPair {
  /** 65-byte uncompressed P-256 point, url-safe base64. */
  publicKey: string;
  /** 32-byte private scalar, url-safe base64. */
  privateKey: string;
}

export function generateVapidKeyPair(): VapidKeyPair {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  const x = Buffer.from(jwk.x!, 'base64url');
  const y = Buffer.from(jwk.y!, 'base64url');
  return {
    publicKey: Buffer.concat([Buffer.from([4]), x, y]).toString('base64url'),
    privateKey: jwk.d!,
  };
}

export async function writeVapidKeyFile(file: string, keys: VapidKeyPair): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, file);
}

export async function readVapidKeyFile(file: string): Promise<VapidKeyPair> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<VapidKeyPair>;
  if (typeof parsed.publicKey !== 'string' || typeof parsed.privateKey !== 'string') {
    throw new Error(`${file}: a VAPID key file needs "publicKey" and "privateKey" strings`);
  }
  return { publicKey: parsed.publicKey, privateKey: parsed.privateKey };
}
