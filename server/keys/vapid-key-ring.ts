// The owner's use cases of a site's VAPID key ring, written once for `push-kit keys vapid` and the owner API
// (GET/POST/DELETE /api/v1/sites/:name/vapid-keys): list the ring with the subscribers on each key, rotate (a
// new current key, the old one legacy), retire a legacy key no subscriber uses any more.
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import { generateVapidKeyPair, readVapidKeyFile, writeVapidKeyFile } from '../push/vapid-keys.ts';
import { vapidKeyPairProblem } from '../push/vapid.ts';
import { vapidKeyFile } from '../state-paths.ts';
import type { VapidKeyRing, VapidKeyRotation } from '../../contract/vapid-keys.ts';
import {
  currentVapidKeyId,
  forgetRingIds,
  readKeyRing,
  removeLegacyVapidKeyFile,
  subscribersPerKey,
  vapidKeyId,
  writeLegacyVapidKey,
  type KeyRingSite,
} from './key-ring.ts';

/** The ring, current key first, with the subscribed subscribers on each key. */
export async function vapidKeyRing(db: Queryable, stateDir: string, site: KeyRingSite): Promise<VapidKeyRing> {
  const [ring, counts] = await Promise.all([readKeyRing(stateDir, site), subscribersPerKey(db, site)]);
  const keys = ring.map((key) => ({
    id: key.id,
    publicKey: key.publicKey,
    current: key.current,
    subscribers: counts.get(key.id) ?? 0,
    canSign: key.problem === undefined,
    problem: key.problem ?? key.note ?? null,
  }));
  const listed = new Set(keys.map((key) => key.id));
  // Subscribers recorded with a key whose file is gone (deleted by hand, a state folder restored without it).
  const missing = [...counts]
    .filter(([id]) => !listed.has(id))
    .map(([id, subscribers]) => ({ id, subscribers }))
    .sort((a, b) => a.id.localeCompare(b.id));
  const current = keys[0]!;
  const onLegacyKey = [...counts].filter(([id]) => id !== current.id).reduce((sum, [, count]) => sum + count, 0);
  return { keys, onLegacyKey, missing };
}

/**
 * Rewrites the site config's vapidPublicKey, whole or not at all (a temporary file renamed over it): the key's
 * text is replaced where it stands, so the owner's layout and other fields stay as they were.
 */
async function writeConfigPublicKey(configFile: string, previous: string, next: string): Promise<void> {
  try {
    const text = await readFile(configFile, 'utf8');
    const quoted = JSON.stringify(previous);
    let updated: string;
    if (text.split(quoted).length === 2) updated = text.replace(quoted, JSON.stringify(next));
    else {
      const config = JSON.parse(text) as Record<string, unknown>;
      if (config.vapidPublicKey !== previous) throw new Error('its vapidPublicKey is not the key the provider loaded; load it again');
      updated = `${JSON.stringify({ ...config, vapidPublicKey: next }, null, 2)}\n`;
    }
    if ((JSON.parse(updated) as { vapidPublicKey?: unknown }).vapidPublicKey !== next) {
      throw new Error('its vapidPublicKey is not the key the provider loaded; load it again');
    }
    const temp = `${configFile}.${process.pid}.tmp`;
    await writeFile(temp, updated);
    await rename(temp, configFile);
  } catch (error) {
    throw ServerError.causedBy(error, 'E_SITE_CONFIG_WRITE', { configFile, reason: (error as Error).message });
  }
}

/**
 * Makes a new current key: the old pair joins the ring as a legacy key (its subscribers keep being signed with
 * it until their browsers move), the subscribers that stood for "the current key" are pinned to the old key's id,
 * then the site config's vapidPublicKey and the current key file are replaced (each written whole). push.js
 * carries the public key: it must be rebuilt and deployed for new subscriptions to use the new key. `site.config`
 * is updated in place, so a provider that rotates goes on with the new key.
 */
export async function rotateVapidKey(db: Queryable, stateDir: string, site: KeyRingSite): Promise<VapidKeyRotation> {
  const keyFile = vapidKeyFile(stateDir, site.name);
  let previous;
  try {
    previous = await readVapidKeyFile(keyFile);
  } catch (error) {
    throw ServerError.causedBy(error, 'E_VAPID_KEY_READ', { keyFile, reason: (error as Error).message });
  }
  const pending = `${keyFile}.next`;
  // A rotation stopped after the config took the new key: its pair waits in the pending file; finish it.
  if (previous.publicKey !== site.config.vapidPublicKey) {
    const next = await readVapidKeyFile(pending).catch(() => undefined);
    if (next?.publicKey !== site.config.vapidPublicKey) throw new ServerError('E_VAPID_KEY_MISMATCH', { keyFile, configFile: site.file });
    const previousId = await writeLegacyVapidKey(stateDir, site, previous);
    await rename(pending, keyFile);
    forgetRingIds(stateDir, site);
    return { previous: previousId, current: vapidKeyId(next.publicKey), publicKey: next.publicKey, configFile: site.file };
  }
  // The old pair must be the config's and able to sign, or its subscribers could never be reached again.
  const problem = vapidKeyPairProblem(previous);
  if (problem !== undefined) throw new ServerError('E_VAPID_KEY_READ', { keyFile, reason: problem });
  const previousId = await writeLegacyVapidKey(stateDir, site, previous);
  await db.query(`UPDATE subscribers SET vapid_key_id = $2 WHERE site_hash = $1 AND vapid_key_id IS NULL`, [site.hash, previousId]);
  const next = generateVapidKeyPair();
  // The new private key is on disk before the config names its public key, so no crash can lose it.
  await writeVapidKeyFile(pending, next);
  await writeConfigPublicKey(site.file, previous.publicKey, next.publicKey);
  await rename(pending, keyFile);
  site.config.vapidPublicKey = next.publicKey;
  forgetRingIds(stateDir, site);
  return { previous: previousId, current: vapidKeyId(next.publicKey), publicKey: next.publicKey, configFile: site.file };
}

/**
 * Removes a legacy key from the ring once no subscribed subscriber uses it; refused (E_VAPID_KEY_IN_USE, naming
 * the count) before, and for the current key (E_VAPID_KEY_CURRENT) or an id the ring does not hold.
 */
export async function retireVapidKey(db: Queryable, stateDir: string, site: KeyRingSite, id: string, param = 'key'): Promise<void> {
  const ring = await readKeyRing(stateDir, site);
  if (id === ring[0]!.id || id === currentVapidKeyId(site)) throw new ServerError('E_VAPID_KEY_CURRENT', { param, id, site: site.name });
  if (!ring.some((key) => key.id === id)) {
    throw new ServerError('E_VAPID_KEY_UNKNOWN', { param, id, site: site.name, known: ring.map((key) => key.id).join(', ') });
  }
  const { rows } = await db.query<{ count: string }>(
    `SELECT count(*) AS count FROM subscribers WHERE site_hash = $1 AND status = 'subscribed' AND vapid_key_id = $2`,
    [site.hash, id],
  );
  const count = Number(rows[0]?.count ?? 0);
  if (count > 0) throw new ServerError('E_VAPID_KEY_IN_USE', { param, id, site: site.name, count });
  await removeLegacyVapidKeyFile(stateDir, site, id);
  forgetRingIds(stateDir, site);
}
