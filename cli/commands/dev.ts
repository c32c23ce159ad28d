// `push-kit dev`: any site config, run on this machine. Builds a copy of the config whose URLs point at free
// local ports (`cli/dev/dev-config.ts`), runs the provider on one with the embedded database, and serves on the
// other the example site (for the example's own config) or a local page that embeds the site's snippet.
import { existsSync } from 'node:fs';
import { access, readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSite } from '../../emit/build-site.ts';
import { formatProblem } from '../../config/errors.ts';
import { loadConfig } from '../../config/load-config.ts';
import { cliError, fromServerError } from '../errors.ts';
import { DEV_DIST_DIR, localDevConfig, writeDevConfig } from '../dev/dev-config.ts';
import { EXAMPLE_PRODUCTS, startExampleSite, type RunningExampleSite } from '../dev/example-site-server.ts';
import { parsePortFlag, pickPort } from '../dev/pick-port.ts';
import { stopSignal } from '../stop-signal.ts';
import { prepareDashboard } from '../../server/dashboard/index.ts';
import { ServerError } from '../../server/errors.ts';
import { loadSites } from '../../server/sites.ts';
import { startProvider, type Provider } from '../../server/start-provider.ts';
import { STATE_DIR, vapidKeyFile } from '../../server/state-paths.ts';
import { storeShopOrder, updateProducts } from '../../server/shop/index.ts';
import { readVapidKeyFile, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';

// The repository's example (not in the published package): its config, pages and demo key pair.
const EXAMPLE_CONFIG = fileURLToPath(new URL('../../site-configs/calligraphy.json', import.meta.url));
const EXAMPLE_ROOT = fileURLToPath(new URL('../../examples/calligraphy-site/', import.meta.url));
const DEMO_KEY_FILE = fileURLToPath(new URL('../../examples/calligraphy-site/demo-vapid-key.json', import.meta.url));
const LOCAL_PAGE_ROOT = fileURLToPath(new URL('../dev/local-site/', import.meta.url));
/** Where a project keeps its configs (`push-kit init` writes there): dev's config when none is named. */
const CONFIG_DIR = 'site-configs';
const HOST = '127.0.0.1';
const PROVIDER_PORT = 8787;
const SITE_PORT = 8080;

export interface DevOptions {
  /** Folder of pages to serve instead of the example site or the local page. */
  examples?: string;
  port?: string;
  sitePort?: string;
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
  const demo = await readFile(DEMO_KEY_FILE, 'utf8').then(
    (text) => JSON.parse(text) as { publicKey: string; privateKey: string },
    () => undefined,
  );
  if (demo?.publicKey !== publicKey)
    return `no ${file}: sending will fail until the site's private VAPID key is there (push-kit init writes it)`;
  await writeVapidKeyFile(file, demo);
  return undefined;
}

/** The project's one config in site-configs/, when dev is not given one. */
async function projectConfig(): Promise<string> {
  const names = (await readdir(CONFIG_DIR).catch(() => [] as string[])).filter((name) => name.endsWith('.json')).sort();
  if (names.length === 1) return join(CONFIG_DIR, names[0]!);
  throw cliError('E_ARGUMENT', {
    option: 'config',
    rule:
      names.length === 0
        ? `no site config given and none in ${CONFIG_DIR}/: run push-kit init, or name one: push-kit dev path/to/site.json`
        : `${CONFIG_DIR}/ holds ${names.length} site configs (${names.join(', ')}): name one, e.g. push-kit dev ${join(CONFIG_DIR, names[0]!)}`,
  });
}

/** A word for a POSIX shell, quoted when it needs to be. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function pagesFor(configFile: string, options: DevOptions): { root: string; label: string } {
  if (options.examples) return { root: options.examples, label: 'site' };
  if (resolve(configFile) === EXAMPLE_CONFIG && existsSync(EXAMPLE_ROOT)) return { root: EXAMPLE_ROOT, label: 'example site' };
  return { root: LOCAL_PAGE_ROOT, label: 'local page' };
}

/** A port taken between the check and the listen is the same one-line error as one taken before. */
function throwIfPortTaken(error: unknown, port: number, flag: string): void {
  const text = error instanceof Error ? `${error.message} ${(error as NodeJS.ErrnoException).code ?? ''}` : '';
  if (!text.includes('EADDRINUSE')) return;
  throw cliError('E_PORT_IN_USE', { port, flag });
}

async function listenSite(start: () => Promise<RunningExampleSite>, port: number, provider: Provider): Promise<RunningExampleSite> {
  try {
    return await start();
  } catch (error) {
    await provider.close();
    throwIfPortTaken(error, port, 'site-port');
    throw error;
  }
}

export async function runDev(configArgument: string | undefined, options: DevOptions = {}): Promise<number> {
  const configFile = configArgument ?? (await projectConfig());
  const loaded = await loadConfig(configFile);
  if (!loaded.ok) {
    for (const problem of loaded.problems) console.error(formatProblem(configFile, problem));
    return 1;
  }
  const requestedProvider = parsePortFlag('port', options.port);
  const requestedSite = parsePortFlag('site-port', options.sitePort);
  if (requestedProvider !== undefined && requestedProvider !== 0 && requestedProvider === requestedSite)
    throw cliError('E_ARGUMENT', { option: 'site-port', rule: 'must differ from --port' });
  const providerPort = await pickPort({ requested: requestedProvider, preferred: PROVIDER_PORT, flag: 'port', host: HOST });
  const sitePort = await pickPort({
    requested: requestedSite,
    preferred: providerPort.port === SITE_PORT ? 0 : SITE_PORT,
    flag: 'site-port',
    host: HOST,
  });
  const local = { site: `http://localhost:${sitePort.port}`, provider: `http://localhost:${providerPort.port}` };

  const raw = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
  const devFile = await writeDevConfig(loaded.name, localDevConfig(raw, local));
  const built = await buildSite(devFile, DEV_DIST_DIR);
  if (!built.ok) {
    for (const problem of built.problems) console.error(formatProblem(devFile, problem));
    return 1;
  }
  const push = built.files.find((file) => file.path === 'push.js');
  console.log(`built ${built.dir} from ${configFile} with local URLs (push.js ${((push?.gzip ?? 0) / 1024).toFixed(1)} KB gzip)`);

  const { sites, problems } = await loadSites([devFile], DEV_DIST_DIR);
  const site = sites[0];
  if (!site) throw cliError('E_SITE_NOT_HOSTABLE', { problems: problems.join('\n') || `${configFile}: cannot be hosted` });
  const keyWarning = await ensureVapidKey(site.name, site.config.vapidPublicKey);
  if (keyWarning) console.warn(`warning: ${keyWarning}`);

  // Handlers first: a SIGTERM sent as soon as the URLs are read must stop everything cleanly.
  const stopped = stopSignal();
  const provider = await startProvider({
    sites,
    port: providerPort.port,
    host: HOST,
    database: process.env.DATABASE_URL || undefined,
    providerFile: true,
  }).catch((error: unknown) => {
    if (error instanceof ServerError) throwIfPortTaken(error, providerPort.port, 'port');
    return fromServerError(error);
  });
  const ownerKey = provider.ownerKeys.get(site.name);

  const pages = pagesFor(configFile, options);
  // The example shop's products, as a shop posts them: its product pages' views can be reminded of, and a price
  // posted lower (POST .../products) announced (docs/automations.md).
  if (pages.root === EXAMPLE_ROOT) {
    const products = EXAMPLE_PRODUCTS.map((product) => ({
      id: String(product.productId),
      name: product.title,
      url: new URL(product.url, site.config.origin).href,
      price: product.priceCents / 100,
      currency: 'USD',
      inStock: true,
    }));
    await updateProducts(provider.db, site.hash, products, Date.now()).catch(async (error: unknown) => {
      await provider.close();
      return fromServerError(error);
    });
  }
  const example = await listenSite(
    () =>
      startExampleSite({
        root: pages.root,
        bundleDir: built.dir,
        port: sitePort.port,
        host: HOST,
        onOrder: (orderId, order) => storeShopOrder(provider.db, site.hash, orderId, order),
        paths: site.config,
        // any other path of the site is a page with the snippet: includeUrls such as /products/* can be tried
        fallbackRoot: LOCAL_PAGE_ROOT,
      }),
    sitePort.port,
    provider,
  );

  const taken = (choice: { taken?: number }, flag: string) =>
    choice.taken === undefined ? '' : ` (${choice.taken} is taken; choose with --${flag})`;
  console.log(`\n  ${pages.label.padEnd(13)} ${local.site}/${taken(sitePort, 'site-port')}`);
  console.log(
    `  provider      ${local.provider}/ (${process.env.DATABASE_URL ? 'PostgreSQL' : provider.storage})${taken(providerPort, 'port')}`,
  );
  console.log(`  dashboard     ${local.provider}/dashboard/`);
  if (ownerKey) console.log(`  owner API key for ${site.name} (shown once): ${ownerKey}`);
  // the provider file (.push-kit/provider.json) lets send find this provider: no key, no URL
  const title = shellWord(`News from ${site.config.companyName}`);
  console.log(`\n  send a notification: npx push-kit send --site ${site.name} --title ${title} --body 'Something new is waiting for you'`);
  console.log('  press Ctrl-C to stop\n');
  prepareDashboard((line) => console.log(line));

  await stopped;
  await example.close();
  await provider.close();
  return 0;
}
