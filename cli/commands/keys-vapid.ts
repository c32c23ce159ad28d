// `push-kit keys vapid --site NAME`: the site's VAPID key ring with the subscribers on each key;
// `keys vapid rotate --site NAME`: a new current key, the old one kept as a legacy key (its subscribers keep
// working on it until their browsers move); `keys vapid retire --site NAME KEY`: remove a legacy key once no
// subscriber uses it. The same use cases as the owner API's /vapid-keys (server/keys/vapid-key-ring.ts).
import { join } from 'node:path';
import { cliError, fromServerError, isDatabaseInUse } from '../errors.ts';
import { configuredSite } from '../configured-site.ts';
import { openProviderDatabase } from '../../server/db/open-provider-database.ts';
import type { Database } from '../../server/db/database.ts';
import { retireVapidKey, rotateVapidKey, vapidKeyRing } from '../../server/keys/index.ts';
import type { HostedSite } from '../../server/sites.ts';
import { embeddedDatabaseDir, STATE_DIR } from '../../server/state-paths.ts';
import type { VapidKeyRing } from '../../contract/vapid-keys.ts';

export interface KeysVapidOptions {
  site?: string;
  database?: string;
  sites?: string[];
}

async function openFor(site: HostedSite, url: string | undefined, action: string | undefined): Promise<Database> {
  const dataDir = embeddedDatabaseDir(STATE_DIR);
  try {
    return await openProviderDatabase(url, dataDir, true);
  } catch (error) {
    const command = `push-kit keys vapid${action ? ` ${action}` : ''} --site ${site.name}`;
    const advice = isDatabaseInUse(error)
      ? `\n  A provider is running on it and the embedded database opens in one process at a time: use the dashboard's ` +
        `keys screen or the owner API (/api/v1/sites/${site.name}/vapid-keys) while it runs, or stop it and run ${command}.`
      : '';
    throw cliError('E_DATABASE', { database: url ? 'given' : dataDir, reason: `${(error as Error).message}${advice}` });
  }
}

function printRing(site: HostedSite, ring: VapidKeyRing): void {
  const count = (n: number) => `${n} subscriber${n === 1 ? '' : 's'}`;
  console.log(
    `${site.name}: VAPID key ring, ${ring.keys.length} key${ring.keys.length === 1 ? '' : 's'}; on a legacy key: ${ring.onLegacyKey}`,
  );
  const width = Math.max(...ring.keys.map((key) => count(key.subscribers).length));
  for (const key of ring.keys) {
    const problem = key.problem ? `  (${key.canSign ? '' : 'cannot sign: '}${key.problem})` : '';
    console.log(
      `  ${key.id}  ${key.current ? 'current' : 'legacy '}  ${count(key.subscribers).padStart(width)}  ${key.publicKey}${problem}`,
    );
  }
  for (const gone of ring.missing) {
    console.log(`  ${gone.id}  missing  ${count(gone.subscribers)}: the key file is gone; their pushes wait until it is back`);
  }
}

export async function runKeysVapid(action: string | undefined, keyId: string | undefined, options: KeysVapidOptions): Promise<number> {
  if (!options.site) throw cliError('E_ARGUMENT', { option: 'site', rule: 'is required (the site config base name)' });
  if (action === 'retire' && !keyId)
    throw cliError('E_VAPID_KEY', { problem: 'KEY: retire needs the id of a legacy key (push-kit keys vapid lists them)' });
  if (action !== 'retire' && keyId)
    throw cliError('E_VAPID_KEY', { problem: `KEY: only retire takes a key id, not ${action ?? 'the listing'}` });
  const site = await configuredSite(options.site, options.sites);
  const url = options.database ?? (process.env.DATABASE_URL || undefined);
  const db = await openFor(site, url, action);
  try {
    if (action === 'rotate') {
      const rotation = await rotateVapidKey(db, STATE_DIR, site);
      const ring = await vapidKeyRing(db, STATE_DIR, site);
      const previous = ring.keys.find((key) => key.id === rotation.previous);
      console.log(`${site.name}: new current VAPID key ${rotation.current}; ${rotation.previous} is now a legacy key`);
      console.log(`  ${rotation.configFile}: vapidPublicKey is now ${rotation.publicKey}`);
      console.log(`  ${join(STATE_DIR, 'keys', `${site.name}.json`)}: the new key pair (0600); the old one is kept on the ring`);
      console.log(`  ${previous?.subscribers ?? 0} subscriber(s) keep working on the legacy key until their browsers move to the new one.`);
      console.log(
        `  Rebuild and deploy push.js now (push-kit build ${rotation.configFile}, then upload it): until then new subscriptions use the old key.`,
      );
      return 0;
    }
    if (action === 'retire') {
      await retireVapidKey(db, STATE_DIR, site, keyId!, 'KEY');
      console.log(`${site.name}: legacy VAPID key ${keyId} retired (its private key file is deleted)`);
      printRing(site, await vapidKeyRing(db, STATE_DIR, site));
      return 0;
    }
    printRing(site, await vapidKeyRing(db, STATE_DIR, site));
    return 0;
  } catch (error) {
    fromServerError(error);
  } finally {
    await db.close();
  }
}
