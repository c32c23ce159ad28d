// `push-kit dev`: build one site, run the provider on its serverSyncUrl port with the embedded database, and
// serve the example site on the config's origin port with the bundle at its root.
import { access, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildSite } from '../../emit/build-site.ts';
import { formatProblem } from '../../config/errors.ts';
import { cliError, fromServerError } from '../errors.ts';
import { startExampleSite } from '../dev/example-site-server.ts';
import { stopSignal } from '../stop-signal.ts';
import { prepareDashboard } from '../../server/dashboard/dashboard-build.ts';
import { loadSites } from '../../server/sites.ts';
import { startProvider } from '../../server/start-provider.ts';
import { STATE_DIR, vapidKeyFile } from '../../server/state-paths.ts';
import { storeShopOrder } from '../../server/store/shop-orders.ts';
import { readVapidKeyFile, writeVapidKeyFile } from '../../server/vapid-keys.ts';

const EXAMPLE_ROOT = fileURLToPath(new URL('../../examples/calligraphy-site/', import.meta.url));
const DEMO_KEY_FILE = fileURLToPath(new URL('../../examples/calligraphy-site/demo-vapid-key.json', import.meta.url));
const OUT_DIR = 'dist';

export interface DevOptions {
  examples?: string;
}

function portOf(url: string): number {
  const parsed = new URL(url);
  return Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
}

/**
 * The example config ships the public half of a demo key pair whose private half is in the example folder, so
 * `push-kit send` works out of the box in development. A site from `push-kit init` has its own key already.
 */
async function ensureVapidKey(name: string, publicKey: string): Promise<string | undefined> {
  const file = vapidKeyFile(STATE_DIR, name);
  const exists = await access(file).then(
    () => true,
    () => false,
  );
  if (exists) {
    const keys = await readVapidKeyFile(file);
    return keys.publicKey === publicKey
      ? undefined
      : `${file} does not hold the private key of the config's vapidPublicKey: sending will fail`;
  }
  const demo = JSON.parse(await readFile(DEMO_KEY_FILE, 'utf8')) as { publicKey: string; privateKey: string };
  if (demo.publicKey !== publicKey)
    return `no ${file}: sending will fail until the site's private VAPID key is there (push-kit init writes it)`;
  await writeVapidKeyFile(file, demo);
  return undefined;
}

export async function runDev(configFile: string, options: DevOptions = {}): Promise<number> {
  const built = await buildSite(configFile, OUT_DIR);
  if (!built.ok) {
    for (const problem of built.problems) console.error(formatProblem(configFile, problem));
    return 1;
  }
  const push = built.files.find((file) => file.path === 'push.js');
  console.log(`built ${built.dir} (push.js ${((push?.gzip ?? 0) / 1024).toFixed(1)} KB gzip)`);

  const { sites, problems } = await loadSites([configFile], OUT_DIR);
  const site = sites[0];
  if (!site) throw cliError('E_SITE_NOT_HOSTABLE', { problems: problems.join('\n') || `${configFile}: cannot be hosted` });
  const keyWarning = await ensureVapidKey(site.name, site.config.vapidPublicKey);
  if (keyWarning) console.warn(`warning: ${keyWarning}`);

  // Handlers first: a SIGTERM sent as soon as the URLs are read must stop everything cleanly.
  const stopped = stopSignal();
  const provider = await startProvider({
    sites,
    port: portOf(site.config.serverSyncUrl),
    host: '127.0.0.1',
    database: process.env.DATABASE_URL || undefined,
  }).catch(fromServerError);
  const ownerKey = provider.ownerKeys.get(site.name);

  const example = await startExampleSite({
    root: options.examples ?? EXAMPLE_ROOT,
    bundleDir: built.dir,
    port: portOf(site.config.origin),
    onOrder: (orderId, order) => storeShopOrder(provider.db, site.hash, orderId, order),
  });

  console.log(`\n  example site  ${site.config.origin}/`);
  console.log(`  provider      ${site.config.serverSyncUrl}/ (${process.env.DATABASE_URL ? 'PostgreSQL' : provider.storage})`);
  console.log(`  dashboard     ${site.config.serverSyncUrl}/dashboard/`);
  if (ownerKey) console.log(`  owner API key for ${site.name} (shown once): ${ownerKey}`);
  console.log(
    `\n  send a notification: npx push-kit send --site ${site.name} --title "Hello" --body "New submissions are in" --key ${ownerKey ?? '<owner key>'}`,
  );
  console.log('  press Ctrl-C to stop\n');
  prepareDashboard((line) => console.log(line));

  await stopped;
  await example.close();
  await provider.close();
  return 0;
}
