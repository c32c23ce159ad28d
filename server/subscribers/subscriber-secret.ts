// Proof that a call comes from one subscriber's browser: the per-subscriber secret the provider issues in a
// sync reply. Only its SHA-256 is stored, so a copy of the database cannot act as a subscriber; a presented
// secret is compared with the stored hash in constant time.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/database.ts';

const hashOf = (secret: string): Buffer => hash('sha256', secret, 'buffer');

/** SHA-256 (hex) of a secret, as stored. */
export const secretHash = (secret: string): string => hash('sha256', secret, 'hex');

// Secrets are cut from a block of random bytes drawn at once, each byte used once: one draw from the system's
// generator per 128 secrets, not one per secret (a sync issues or readies one per insert and update).
const SECRET_BYTES = 32;
let pool = Buffer.alloc(0);
let used = 0;
function randomSecret(): string {
  if (used + SECRET_BYTES > pool.length) {
    pool = randomBytes(SECRET_BYTES * 128);
    used = 0;
  }
  const secret = pool.toString('base64url', used, used + SECRET_BYTES);
  used += SECRET_BYTES;
  return secret;
}

/** True when `secret` is the one whose hash (hex) is stored; false for a missing secret or a subscriber without one. */
export function secretMatches(storedHash: string | null | undefined, secret: string | undefined): boolean {
  if (!storedHash || !secret) return false;
  const stored = Buffer.from(storedHash, 'hex');
  const presented = hashOf(secret);
  return stored.length === presented.length && timingSafeEqual(stored, presented);
}

/** A new secret and the hash (hex) to store for it. */
export function newSecret(): { secret: string; hash: string } {
  const secret = randomSecret();
  return { secret, hash: secretHash(secret) };
}

/** Issues a new secret for the subscriber (replacing any earlier one) and returns it; only its hash is stored. */
export async function issueSecret(tx: Queryable, subscriberId: string): Promise<string> {
  const { secret, hash } = newSecret();
  await tx.query('UPDATE subscribers SET secret_hash = $2 WHERE id = $1', [subscriberId, hash]);
  return secret;
}

/** The stored secret hash of a site's subscriber: undefined when there is no such subscriber, null when it has no secret yet. */
export async function secretHashOf(db: Queryable, siteHash: string, subscriberId: string): Promise<string | null | undefined> {
  const { rows } = await db.query<{ secret_hash: string | null }>('SELECT secret_hash FROM subscribers WHERE site_hash = $1 AND id = $2', [
    siteHash,
    subscriberId,
  ]);
  return rows[0]?.secret_hash;
}
