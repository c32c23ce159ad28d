// A site's VAPID key ring: its current key pair (`.push-kit/keys/<name>.json`, whose public key is the site
// config's vapidPublicKey) and any number of legacy key pairs (`.push-kit/keys/<name>.legacy/<id>.json`), from
// an import (`push-kit import --vapid-key`) or a rotation. A push subscription is bound to the public key it was
// made with, so each subscriber row records its key's id (subscribers.vapid_key_id; NULL: the current key) and
// every push is signed with that key. Private keys stay in 0600 files in the state folder, as the current one
// always has: never in the database, whose backups and replicas travel further than the project folder.
import { createHash } from 'node:crypto';
import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import { readVapidKeyFile, writeVapidKeyFile, type VapidKeyPair } from '../push/vapid-keys.ts';
import { vapidKeyPairProblem } from '../push/vapid.ts';
import type { HostedSite } from '../sites.ts';
import { legacyVapidKeyDir, vapidKeyFile } from '../state-paths.ts';

/** What the ring needs of a site: its name (the key files' name) and config (the current public key). */
export type KeyRingSite = Pick<HostedSite, 'name' | 'hash' | 'file'> & { config: Pick<HostedSite['config'], 'vapidPublicKey'> };

const ID_PATTERN = /^[0-9a-f]{12}$/;

/** A key's id on the ring: the first 12 hex digits of the SHA-256 of its public key's 65 bytes. */
export function vapidKeyId(publicKey: string): string {
  return createHash('sha256').update(Buffer.from(publicKey, 'base64url')).digest('hex').slice(0, 12);
}

/** Whether `text` has the form of a key id (what `keys vapid retire KEY` and the owner API accept). */
export function isVapidKeyId(text: string): boolean {
  return ID_PATTERN.test(text);
}

/** The id of the site's current key (the site config's vapidPublicKey). */
export function currentVapidKeyId(site: KeyRingSite): string {
  return vapidKeyId(site.config.vapidPublicKey);
}

export function legacyVapidKeyFile(stateDir: string, siteName: string, id: string): string {
  return join(legacyVapidKeyDir(stateDir, siteName), `${id}.json`);
}

export interface RingKey {
  id: string;
  publicKey: string;
  current: boolean;
  /** The private key's file. */
  file: string;
  /** The pair, when its file could be read. */
  keys?: VapidKeyPair;
  /** Why this key cannot sign (file missing or unreadable, pair broken), or undefined. */
  problem?: string;
}

/**
 * The site's ring as its files say: the current key first (from the site config, with its file's pair), then
 * the legacy keys by id. A legacy file whose public key does not hash to its name is reported, not used.
 */
export async function readKeyRing(stateDir: string, site: KeyRingSite): Promise<RingKey[]> {
  const currentFile = vapidKeyFile(stateDir, site.name);
  const current: RingKey = { id: currentVapidKeyId(site), publicKey: site.config.vapidPublicKey, current: true, file: currentFile };
  try {
    const keys = await readVapidKeyFile(currentFile);
    if (keys.publicKey !== site.config.vapidPublicKey)
      current.problem = `${currentFile} is not the key pair of ${site.file}'s vapidPublicKey`;
    else {
      current.keys = keys;
      current.problem = vapidKeyPairProblem(keys);
    }
  } catch (error) {
    current.problem = (error as Error).message;
  }
  const ring = [current];
  let names: string[];
  try {
    names = await readdir(legacyVapidKeyDir(stateDir, site.name));
  } catch {
    names = [];
  }
  for (const name of names.sort()) {
    const id = name.replace(/\.json$/, '');
    if (!name.endsWith('.json') || !isVapidKeyId(id) || id === current.id) continue;
    const file = legacyVapidKeyFile(stateDir, site.name, id);
    try {
      const keys = await readVapidKeyFile(file);
      if (vapidKeyId(keys.publicKey) !== id) {
        ring.push({ id, publicKey: keys.publicKey, current: false, file, problem: `${file}: its public key's id is not ${id}` });
        continue;
      }
      ring.push({ id, publicKey: keys.publicKey, current: false, file, keys, problem: vapidKeyPairProblem(keys) });
    } catch (error) {
      ring.push({ id, publicKey: '', current: false, file, problem: (error as Error).message });
    }
  }
  return ring;
}

/** The pairs that can sign, by id, and why the others cannot: what a sender needs. */
export interface SigningKeys {
  currentId: string;
  pairs: Map<string, VapidKeyPair>;
  problems: Map<string, string>;
}

export async function signingKeys(stateDir: string, site: KeyRingSite): Promise<SigningKeys> {
  const ring = await readKeyRing(stateDir, site);
  const pairs = new Map<string, VapidKeyPair>();
  const problems = new Map<string, string>();
  for (const key of ring) {
    if (key.keys && key.problem === undefined) pairs.set(key.id, key.keys);
    else problems.set(key.id, key.problem ?? 'unreadable');
  }
  return { currentId: ring[0]!.id, pairs, problems };
}

/**
 * Adds a key pair made elsewhere (another service's, a `web-push` setup's) to the site's ring as a legacy key,
 * in a 0600 file; returns its id, the value to store in subscribers.vapid_key_id of the subscriptions made with
 * it. Adding a key already on the ring (or the current one) changes nothing and returns its id. Throws
 * E_VAPID_KEY_INVALID when the pair cannot sign (a private key that is not the public key's, bad lengths).
 */
export async function addLegacyVapidKey(stateDir: string, site: KeyRingSite, keyPair: VapidKeyPair, param = 'vapidKey'): Promise<string> {
  const pair = { publicKey: keyPair.publicKey, privateKey: keyPair.privateKey };
  const problem =
    typeof pair.publicKey === 'string' && typeof pair.privateKey === 'string'
      ? vapidKeyPairProblem(pair)
      : 'publicKey and privateKey must be strings';
  if (problem !== undefined) throw new ServerError('E_VAPID_KEY_INVALID', { param, problem });
  const id = vapidKeyId(pair.publicKey);
  if (id === currentVapidKeyId(site)) return id;
  const file = legacyVapidKeyFile(stateDir, site.name, id);
  try {
    const existing = await readVapidKeyFile(file);
    if (existing.publicKey === pair.publicKey && existing.privateKey === pair.privateKey) return id;
  } catch {
    // not there yet (or unreadable): written below
  }
  await writeVapidKeyFile(file, pair);
  forgetLegacyIds(stateDir, site);
  return id;
}

/** Removes a legacy key's file (the use case checks first: server/keys/owner-keys.ts retireVapidKey). */
export async function removeLegacyVapidKeyFile(stateDir: string, site: KeyRingSite, id: string): Promise<void> {
  await unlink(legacyVapidKeyFile(stateDir, site.name, id));
}

/**
 * The key id to record for a subscription a browser reports having made with `reportedPublicKey` (the sync
 * call's vapidPublicKey): that key's id when it is the current key or a legacy key on the ring, else the current
 * key's. A browser that names a key the ring does not hold gets the current key, so no row waits for a key that
 * will never come.
 */
export async function subscriptionVapidKeyId(stateDir: string, site: KeyRingSite, reportedPublicKey?: string): Promise<string> {
  const current = currentVapidKeyId(site);
  if (!reportedPublicKey || reportedPublicKey === site.config.vapidPublicKey) return current;
  const id = vapidKeyId(reportedPublicKey);
  return (await legacyIds(stateDir, site)).has(id) ? id : current;
}

const LEGACY_IDS_TTL_MS = 5000;
const legacyIdCache = new Map<string, { at: number; ids: Set<string> }>();

/** The ids of the site's legacy key files, read at most every few seconds (the sync path asks per insert). */
async function legacyIds(stateDir: string, site: KeyRingSite): Promise<Set<string>> {
  const dir = legacyVapidKeyDir(stateDir, site.name);
  const cached = legacyIdCache.get(dir);
  if (cached && Date.now() - cached.at < LEGACY_IDS_TTL_MS) return cached.ids;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    names = [];
  }
  const ids = new Set(names.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -5)));
  legacyIdCache.set(dir, { at: Date.now(), ids });
  return ids;
}

/** Forgets the cached legacy ids of a site (after an add, rotate or retire in this process). */
export function forgetLegacyIds(stateDir: string, site: KeyRingSite): void {
  legacyIdCache.delete(legacyVapidKeyDir(stateDir, site.name));
}

/** Subscribed subscribers per key id (NULL counted on the current key). */
export async function subscribersPerKey(db: Queryable, site: KeyRingSite): Promise<Map<string, number>> {
  const { rows } = await db.query<{ id: string; count: string }>(
    `SELECT coalesce(vapid_key_id, $2) AS id, count(*) AS count FROM subscribers
     WHERE site_hash = $1 AND status = 'subscribed' GROUP BY 1`,
    [site.hash, currentVapidKeyId(site)],
  );
  return new Map(rows.map((row) => [row.id, Number(row.count)]));
}
