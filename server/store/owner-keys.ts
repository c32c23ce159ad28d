// Per-site secret keys of the owner API. Only a SHA-256 of a key is stored; the key itself is shown once,
// when it is created.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Queryable } from './database.ts';
import type { HostedSite } from '../sites.ts';
import { ownerKeyFile } from '../state-paths.ts';

function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/**
 * The SHA-256 of the owner key `push-kit init` created and printed (`<stateDir>/owner-keys/<name>.json`,
 * `{"sha256": "..."}`), or undefined when there is none.
 */
export async function ownerKeyHashFromInit(stateDir: string, name: string): Promise<string | undefined> {
  const file = ownerKeyFile(stateDir, name);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const sha256 = (JSON.parse(text) as { sha256?: unknown }).sha256;
  if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`${file}: "sha256" must be 64 hex digits`);
  return sha256;
}

/**
 * Gives the site an owner key when it has none: the one `push-kit init` created (its hash from `initKeyHash`),
 * else a new one, returned (the only time it is readable). Null when no new key was made.
 */
export async function ensureOwnerKey(db: Queryable, site: Pick<HostedSite, 'hash'>, initKeyHash?: string): Promise<string | null> {
  if (initKeyHash) {
    await db.query('INSERT INTO owner_keys (site_hash, key_hash) VALUES ($1, $2) ON CONFLICT (site_hash) DO NOTHING', [
      site.hash,
      initKeyHash,
    ]);
    return null;
  }
  const key = `pk_${randomBytes(24).toString('base64url')}`;
  const { rows } = await db.query(
    'INSERT INTO owner_keys (site_hash, key_hash) VALUES ($1, $2) ON CONFLICT (site_hash) DO NOTHING RETURNING site_hash',
    [site.hash, hashKey(key)],
  );
  return rows.length === 1 ? key : null;
}

/** Replaces the site's owner key (a leaked key) and returns the new one. */
export async function rotateOwnerKey(db: Queryable, site: Pick<HostedSite, 'hash'>): Promise<string> {
  const key = `pk_${randomBytes(24).toString('base64url')}`;
  await db.query(
    `INSERT INTO owner_keys (site_hash, key_hash) VALUES ($1, $2)
     ON CONFLICT (site_hash) DO UPDATE SET key_hash = EXCLUDED.key_hash, created_at = now()`,
    [site.hash, hashKey(key)],
  );
  return key;
}

export async function isOwnerKey(db: Queryable, site: Pick<HostedSite, 'hash'>, key: string): Promise<boolean> {
  const { rows } = await db.query<{ key_hash: string }>('SELECT key_hash FROM owner_keys WHERE site_hash = $1', [site.hash]);
  const stored = rows[0]?.key_hash;
  if (!stored) return false;
  return timingSafeEqual(Buffer.from(stored, 'hex'), Buffer.from(hashKey(key), 'hex'));
}
