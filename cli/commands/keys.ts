// `push-kit keys --site NAME`: whether the site has an owner API key; `push-kit keys rotate --site NAME`: a new
// key, printed once, that replaces the old one at once. Only a key's SHA-256 is stored, so a lost key cannot
// be shown again, only rotated. The embedded database opens in one process at a time: while `serve` or `dev`
// holds it, the status is read from the provider's file (.push-kit/provider.json) and a rotation says to stop the
// provider first (a PostgreSQL database rotates under a running provider, which checks keys against it on every call).
import { join } from 'node:path';
import { cliError, isDatabaseInUse } from '../errors.ts';
import { configuredSite } from '../configured-site.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { ownerKeyCreatedAt, ownerKeyHashFromInit, replaceOwnerKeyFromInit, rotateOwnerKey } from '../../server/http/owner-keys.ts';
import type { HostedSite } from '../../server/sites.ts';
import { readRunningProvider } from '../../server/provider-file.ts';
import { STATE_DIR } from '../../server/state-paths.ts';

export interface KeysOptions {
  site: string;
  database?: string;
  sites?: string[];
}

async function openFor(site: HostedSite, url: string | undefined, rotating: boolean): Promise<Database> {
  const dataDir = join(STATE_DIR, 'db');
  try {
    return await openDatabase({ url, dataDir, oneShot: true });
  } catch (error) {
    const inUse = isDatabaseInUse(error);
    const advice = inUse
      ? `\n  A provider is running on it and the embedded database opens in one process at a time: stop it (Ctrl+C), run ` +
        `push-kit keys ${rotating ? 'rotate ' : ''}--site ${site.name}, then start it again. With PostgreSQL (--database), ` +
        'keys rotate while the provider runs.'
      : '';
    throw cliError('E_DATABASE', { database: url ? 'given' : dataDir, reason: `${(error as Error).message}${advice}` });
  }
}

function printStatus(name: string, createdAt: string | null): void {
  console.log(
    createdAt
      ? `${name}: an owner key exists (made ${createdAt}); push-kit keys rotate --site ${name} replaces it`
      : `${name}: no owner key yet; push-kit keys rotate --site ${name} makes one`,
  );
}

export async function runKeys(action: string | undefined, options: KeysOptions): Promise<number> {
  const site = await configuredSite(options.site, options.sites);
  const url = options.database ?? (process.env.DATABASE_URL || undefined);
  if (action !== 'rotate' && !url) {
    // a provider holding the embedded database wrote its sites' key dates (server/provider-file.ts)
    const running = (await readRunningProvider(STATE_DIR)).provider;
    if (running && site.name in running.ownerKeys) {
      printStatus(site.name, running.ownerKeys[site.name] ?? null);
      return 0;
    }
  }
  const db = await openFor(site, url, action === 'rotate');
  try {
    if (action === 'rotate') {
      const key = await rotateOwnerKey(db, site);
      console.log(`New owner key for ${site.name} (shown once, keep it secret; the previous key no longer works):`);
      console.log(`  ${key}`);
      // printed first: the database holds the new key whatever happens to the file (a read-only mount, say)
      await replaceOwnerKeyFromInit(STATE_DIR, site.name, key).catch((error: Error) => {
        const file = join(STATE_DIR, 'owner-keys', `${site.name}.json`);
        console.error(`push-kit: cannot update ${file} (${error.message}); delete it, or a new database would take the old key from it`);
      });
      return 0;
    }
    const createdAt = await ownerKeyCreatedAt(db, site);
    if (createdAt) {
      printStatus(site.name, createdAt.toISOString());
    } else if (await ownerKeyHashFromInit(STATE_DIR, site.name)) {
      console.log(
        `${site.name}: the owner key push-kit init printed is waiting in ${join(STATE_DIR, 'owner-keys', `${site.name}.json`)}; the provider takes it at its next start`,
      );
    } else {
      console.log(
        `${site.name}: no owner key yet; push-kit serve makes one at its first start, push-kit keys rotate --site ${site.name} makes one now`,
      );
    }
    return 0;
  } finally {
    await db.close();
  }
}
