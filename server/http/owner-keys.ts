// Per-site secret keys of the owner API. Only a SHA-256 of a key is stored; the key itself is shown once,
// when it is created.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { Queryable } from '../db/database.ts';
import type { HostedSite } from '../sites.ts';
import { ownerKeyFile } from '../state-paths.ts';

/** The member id of the site's first owner, whose key is the owner key (`push-kit keys rotate` replaces it). */
export const FIRST_OWNER_ID = 'owner';

export function hashOwnerKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A new owner key, the one format of every key (`push-kit init`, `serve`, `keys rotate`): `pk_` and 32 characters. */
export function newOwnerKey(): string {
  return `pk_${randomBytes(24).toString('base64url')}`;
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
  const key = initKeyHash ? undefined : newOwnerKey();
  const keyHash = initKeyHash ?? hashOwnerKey(key!);
  const { rows } = await db.query(
    'INSERT INTO owner_keys (site_hash, key_hash) VALUES ($1, $2) ON CONFLICT (site_hash) DO NOTHING RETURNING site_hash',
    [site.hash, keyHash],
  );
  if (rows.length === 0) return null;
  // the site's first key is its first owner member's (a member removed later is not brought back at a start)
  await setFirstOwnerKey(db, site, keyHash);
  return key ?? null;
}

/** The site's first owner member, "Owner" (server/members/), opened by the owner key `keyHash` is the hash of. */
async function setFirstOwnerKey(db: Queryable, site: Pick<HostedSite, 'hash'>, keyHash: string): Promise<void> {
  await db.query(
    `INSERT INTO site_members (site_hash, id, name, role, key_hash) VALUES ($1, '${FIRST_OWNER_ID}', 'Owner', 'owner', $2)
     ON CONFLICT (site_hash, id) DO UPDATE SET key_hash = EXCLUDED.key_hash, role = 'owner', link_hash = NULL`,
    [site.hash, keyHash],
  );
}

/** Replaces the site's owner key (a leaked key), its first owner member's, and returns the new one. */
export async function rotateOwnerKey(db: Queryable, site: Pick<HostedSite, 'hash'>): Promise<string> {
  const key = newOwnerKey();
  await db.query(
    `INSERT INTO owner_keys (site_hash, key_hash) VALUES ($1, $2)
     ON CONFLICT (site_hash) DO UPDATE SET key_hash = EXCLUDED.key_hash, created_at = now()`,
    [site.hash, hashOwnerKey(key)],
  );
  await setFirstOwnerKey(db, site, hashOwnerKey(key));
  return key;
}

export async function isOwnerKey(db: Queryable, site: Pick<HostedSite, 'hash'>, key: string): Promise<boolean> {
  const { rows } = await db.query<{ key_hash: string }>('SELECT key_hash FROM owner_keys WHERE site_hash = $1', [site.hash]);
  const stored = rows[0]?.key_hash;
  if (!stored) return false;
  return timingSafeEqual(Buffer.from(stored, 'hex'), Buffer.from(hashOwnerKey(key), 'hex'));
}

/**
 * Points the key file `push-kit init` wrote at `key`, when there is one: a provider starting on a new
 * database takes that file's key, which must then be the current one, not the one a rotation replaced.
 */
export async function replaceOwnerKeyFromInit(stateDir: string, name: string, key: string): Promise<boolean> {
  if ((await ownerKeyHashFromInit(stateDir, name)) === undefined) return false;
  await writeFile(ownerKeyFile(stateDir, name), `${JSON.stringify({ sha256: hashOwnerKey(key) }, null, 2)}\n`, { mode: 0o600 });
  return true;
}

/** When the site's current owner key was made, or null when it has none. */
export async function ownerKeyCreatedAt(db: Queryable, site: Pick<HostedSite, 'hash'>): Promise<Date | null> {
  const { rows } = await db.query<{ created_at: Date | string }>('SELECT created_at FROM owner_keys WHERE site_hash = $1', [site.hash]);
  return rows[0] ? new Date(rows[0].created_at) : null;
}
