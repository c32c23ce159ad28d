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

// Every insert and update of a sync asks for its subscription's key id (subscriptionVapidKeyId): a site has a few
// keys, so each id is hashed once. The keys a request names are remembered too, up to a bound, then forgotten.
const KEY_IDS_MAX = 1024;
const keyIds = new Map<string, string>();

/** A key's id on the ring: the first 12 hex digits of the SHA-256 of its public key's 65 bytes. */
export function vapidKeyId(publicKey: string): string {
  let id = keyIds.get(publicKey);
  if (id === undefined) {
    id = createHash('sha256').update(Buffer.from(publicKey, 'base64url')).digest('hex').slice(0, 12);
    if (keyIds.size >= KEY_IDS_MAX) keyIds.clear();
    keyIds.set(publicKey, id);
  }
  return id;
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
  /** Something to fix that does not stop it signing (the current key file is not the config's key). */
  note?: string;
}

/**
 * The site's ring as its files say: the current key first (its file's pair), then the legacy keys by id. A
 * current key file that is not the pair of the site config's vapidPublicKey (a rotation the running provider
 * has not seen, a hand-edited file) still signs for the subscribers made with it, and says so in `note`; the
 * config's key is then found among the legacy keys, or reported missing. A legacy file whose public key does
 * not hash to its name is reported, not used.
 */
export async function readKeyRing(stateDir: string, site: KeyRingSite): Promise<RingKey[]> {
  const currentFile = vapidKeyFile(stateDir, site.name);
  let current: RingKey;
  try {
    const keys = await readVapidKeyFile(currentFile);
    current = { id: vapidKeyId(keys.publicKey), publicKey: keys.publicKey, current: true, file: currentFile, keys };
    current.problem = vapidKeyPairProblem(keys);
    if (keys.publicKey !== site.config.vapidPublicKey) current.note = `${currentFile} is not the key pair of ${site.file}'s vapidPublicKey`;
  } catch (error) {
    current = { id: currentVapidKeyId(site), publicKey: site.config.vapidPublicKey, current: true, file: currentFile };
    current.problem = (error as Error).message;
  }
  const ring = [current];
  for (const id of await legacyFileIds(stateDir, site)) {
    if (id === current.id) continue;
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

/** The ids of the site's legacy key files, sorted. */
async function legacyFileIds(stateDir: string, site: KeyRingSite): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(legacyVapidKeyDir(stateDir, site.name));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith('.json') && isVapidKeyId(name.slice(0, -5)))
    .map((name) => name.slice(0, -5))
    .sort();
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
  // A NULL subscribers.vapid_key_id is a subscription made with the config's key (what push.js was built with).
  return { currentId: currentVapidKeyId(site), pairs, problems };
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
  await writeLegacyVapidKey(stateDir, site, pair);
  return id;
}

/** Writes a pair that can sign into the site's legacy keys (0600), unless the same pair is there already. */
export async function writeLegacyVapidKey(stateDir: string, site: KeyRingSite, pair: VapidKeyPair): Promise<string> {
  const id = vapidKeyId(pair.publicKey);
  const file = legacyVapidKeyFile(stateDir, site.name, id);
  try {
    const existing = await readVapidKeyFile(file);
    if (existing.publicKey === pair.publicKey && existing.privateKey === pair.privateKey) return id;
  } catch {
    // not there yet (or unreadable): written below
  }
  await writeVapidKeyFile(file, pair);
  forgetRingIds(stateDir, site);
  return id;
}

/** Removes a legacy key's file (the use case checks first: server/keys/vapid-key-ring.ts retireVapidKey). */
export async function removeLegacyVapidKeyFile(stateDir: string, site: KeyRingSite, id: string): Promise<void> {
  await unlink(legacyVapidKeyFile(stateDir, site.name, id));
}

/**
 * The key id to record for a subscription a browser reports having made with `reportedPublicKey` (the sync
 * call's vapidPublicKey): that key's id when it is on the ring (the current key file's or a legacy key's), else
 * the id of the site config's key. A browser that names a key the ring does not hold gets the config's key, so
 * no row waits for a key that will never come.
 */
export async function subscriptionVapidKeyId(stateDir: string, site: KeyRingSite, reportedPublicKey?: string): Promise<string> {
  const configured = currentVapidKeyId(site);
  if (!reportedPublicKey || reportedPublicKey === site.config.vapidPublicKey) return configured;
  const id = vapidKeyId(reportedPublicKey);
  return (await ringIds(stateDir, site)).has(id) ? id : configured;
}

const RING_IDS_TTL_MS = 5000;
const ringIdCache = new Map<string, { at: number; ids: Set<string> }>();

/** The ids of the site's key files, current and legacy, read at most every few seconds (sync asks per insert). */
async function ringIds(stateDir: string, site: KeyRingSite): Promise<Set<string>> {
  const file = vapidKeyFile(stateDir, site.name);
  const cached = ringIdCache.get(file);
  if (cached && Date.now() - cached.at < RING_IDS_TTL_MS) return cached.ids;
  const ids = new Set(await legacyFileIds(stateDir, site));
  try {
    ids.add(vapidKeyId((await readVapidKeyFile(file)).publicKey));
  } catch {
    // no current key file: the config's key stands for it
  }
  ringIdCache.set(file, { at: Date.now(), ids });
  return ids;
}

/** Forgets the cached ring ids of a site (after an add, rotate or retire in this process). */
export function forgetRingIds(stateDir: string, site: KeyRingSite): void {
  ringIdCache.delete(vapidKeyFile(stateDir, site.name));
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
