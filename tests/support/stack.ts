// The whole product on loopback for a browser test: a site config (calligraphy by default) rewritten to free
// ports, built by the real build, the real provider on an embedded database in a temp folder, and the
// example site serving the bundle.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildSite } from '../../emit/build-site.ts';
import { startExampleSite, type RunningExampleSite } from '../../cli/dev/example-site-server.ts';
import type { Database } from '../../server/db/database.ts';
import { loadSites, type HostedSite } from '../../server/sites.ts';
import { startProvider, type Provider } from '../../server/start-provider.ts';
import { storeShopOrder } from '../../server/shop/shop-orders.ts';
import { retryOnPortInUse } from './port-retry.ts';
import { freePort } from './ports.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

export interface Stack {
  siteUrl: string;
  providerUrl: string;
  /** The config as built (with the test's ports). */
  config: Record<string, unknown> & { hash: string };
  distDir: string;
  db: Database;
  app: FastifyInstance;
  /** The hosted site as the provider sees it (for sending campaigns in a test). */
  site: HostedSite;
  example: RunningExampleSite;
  close(): Promise<void>;
}

export interface StackOptions {
  configFile?: string;
  /**
   * Merged over the config file's fields (`style` field by field); a function is given the ports the stack
   * picked, for overrides that name them.
   */
  overrides?: Record<string, unknown> | ((ports: { providerPort: number; sitePort: number }) => Record<string, unknown>);
  /** Use this provider port instead of a free one (e.g. to restart a provider on the same port). */
  providerPort?: number;
  /**
   * Host name of the site's origin (default localhost). A name Chromium resolves to 127.0.0.1 through
   * `--host-resolver-rules` (e.g. calligraphy.test) makes the site plain http, not a secure context.
   */
  siteHost?: string;
  /** Push service origins the provider allows (a test's fake push service); default: the known push services. */
  pushServices?: string[];
}

export function startStack(options: StackOptions = {}): Promise<Stack> {
  return retryOnPortInUse(() => startStackOnce(options));
}

async function startStackOnce(options: StackOptions): Promise<Stack> {
  const configFile = options.configFile ?? join(REPO, 'site-configs/calligraphy.json');
  const work = await mkdtemp(join(tmpdir(), 'push-kit-e2e-'));
  let provider: Provider | undefined;
  try {
    const sitePort = await freePort();
    const providerPort = options.providerPort ?? (await freePort());
    const siteUrl = `http://${options.siteHost ?? 'localhost'}:${sitePort}`;
    const providerUrl = `http://localhost:${providerPort}`;

    const original = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
    // the icon is served by the example site; a config without one (the defaults) stays without
    const overrides = typeof options.overrides === 'function' ? options.overrides({ providerPort, sitePort }) : options.overrides;
    const originalStyle = original.style as { iconUrl?: string } | undefined;
    const style = originalStyle?.iconUrl ? { ...originalStyle, iconUrl: `${siteUrl}/icon.png` } : originalStyle;
    const config = {
      ...original,
      $schema: join(REPO, 'schema/site-config.schema.json'),
      origin: siteUrl,
      serverSyncUrl: providerUrl,
      ...overrides,
      ...(style || overrides?.style ? { style: { ...style, ...(overrides?.style as object | undefined) } } : {}),
    } as unknown as Stack['config'];
    const testConfigFile = join(work, basename(configFile));
    await writeFile(testConfigFile, JSON.stringify(config, null, 2));

    const distDir = join(work, 'dist');
    const built = await buildSite(testConfigFile, distDir);
    if (!built.ok) throw new Error(`build failed: ${built.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}`);

    const { sites, problems } = await loadSites([testConfigFile], distDir);
    if (problems.length) throw new Error(problems.join('\n'));
    // the work folder is the provider's state folder: its embedded database in work/db
    provider = await startProvider({ sites, port: providerPort, stateDir: work, pushServices: options.pushServices });
    const { db, app } = provider;
    const example = await startExampleSite({
      root: join(REPO, 'examples/calligraphy-site'),
      bundleDir: built.dir,
      port: sitePort,
      onOrder: (orderId, order) => storeShopOrder(db, config.hash, orderId, order),
      paths: sites[0]!.config,
    });
    const running = provider;
    return {
      siteUrl,
      providerUrl,
      config,
      distDir,
      db,
      app,
      site: sites[0]!,
      example,
      async close() {
        await example.close();
        await running.close();
        await rm(work, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await provider?.close().catch(() => undefined);
    await rm(work, { recursive: true, force: true });
    throw error;
  }
}
