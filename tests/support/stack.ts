// The whole product on loopback for a browser test: a site config (calligraphy by default) rewritten to free
// ports, built by the real build, the real provider on an embedded database in a temp folder, and the
// example site serving the bundle. startStacks() hosts several such sites (each its own build, origin and
// example site) on one provider, as `push-kit serve` hosts several configs: a file that needs a few variants
// of the site starts the provider, its database and its migrations once.
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
import { embeddedDatabaseDir } from '../../server/state-paths.ts';
import { seedMigratedDatabase } from './migrated-database.ts';
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
   * Host name of the site's origin (default localhost). A *.test name, which the test browsers resolve to 127.0.0.1
   * (browser.ts's `--host-resolver-rules`), e.g. calligraphy.test, makes the site plain http, not a secure context.
   */
  siteHost?: string;
  /** Push service origins the provider allows (a test's fake push service); default: the known push services. */
  pushServices?: string[];
  /** A folder of more pages for the example site, served where examples/calligraphy-site has no such file. */
  fallbackRoot?: string;
}

export function startStack(options: StackOptions = {}): Promise<Stack> {
  return retryOnPortInUse(async () => (await startStacksOnce([options]))[0]!);
}

/**
 * Several sites on one provider, in the order given. Each is built from its own options (`providerPort` and
 * `pushServices` are the provider's: the first entry's, and every entry's push services); a site whose hash
 * or config file name repeats an earlier one's is hosted as `<hash>-<n>` / `<name>-<n>.json` (n its position
 * from 1), since one provider tells its sites apart by them. The provider closes with the last site closed.
 */
export function startStacks(list: StackOptions[]): Promise<Stack[]> {
  return retryOnPortInUse(() => startStacksOnce(list));
}

async function startStacksOnce(list: StackOptions[]): Promise<Stack[]> {
  const work = await mkdtemp(join(tmpdir(), 'push-kit-e2e-'));
  const examples: RunningExampleSite[] = [];
  let provider: Provider | undefined;
  try {
    const providerPort = list[0]?.providerPort ?? (await freePort());
    const providerUrl = `http://localhost:${providerPort}`;
    const distDir = join(work, 'dist');
    const planned: { config: Stack['config']; file: string; siteUrl: string; sitePort: number; builtDir: string }[] = [];
    for (const [index, options] of list.entries()) {
      const configFile = options.configFile ?? join(REPO, 'site-configs/calligraphy.json');
      const sitePort = await freePort();
      const siteUrl = `http://${options.siteHost ?? 'localhost'}:${sitePort}`;

      const original = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
      const overrides = typeof options.overrides === 'function' ? options.overrides({ providerPort, sitePort }) : options.overrides;
      // the icon is served by the example site; a config without one (the defaults) stays without
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
      if (planned.some((site) => site.config.hash === config.hash)) config.hash = `${config.hash}-${index + 1}`;
      let name = basename(configFile, '.json');
      if (planned.some((site) => basename(site.file, '.json') === name)) name = `${name}-${index + 1}`;
      const file = join(work, `${name}.json`);
      await writeFile(file, JSON.stringify(config, null, 2));
      const built = await buildSite(file, distDir);
      if (!built.ok) throw new Error(`build failed: ${built.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}`);
      planned.push({ config, file, siteUrl, sitePort, builtDir: built.dir });
    }

    const { sites, problems } = await loadSites(
      planned.map((site) => site.file),
      distDir,
    );
    if (problems.length) throw new Error(problems.join('\n'));
    const pushServices = list.some((options) => options.pushServices) ? list.flatMap((options) => options.pushServices ?? []) : undefined;
    // the work folder is the provider's state folder: its embedded database in work/db, started migrated
    await seedMigratedDatabase(embeddedDatabaseDir(work));
    provider = await startProvider({ sites, port: providerPort, stateDir: work, pushServices });
    const { db, app } = provider;
    for (const [index, site] of planned.entries()) {
      examples.push(
        await startExampleSite({
          root: join(REPO, 'examples/calligraphy-site'),
          bundleDir: site.builtDir,
          port: site.sitePort,
          onOrder: (orderId, order) => storeShopOrder(db, site.config.hash, orderId, order),
          paths: sites[index]!.config,
          fallbackRoot: list[index]!.fallbackRoot,
        }),
      );
    }
    const running = provider;
    let open = planned.length;
    return planned.map((site, index) => {
      let closed = false;
      return {
        siteUrl: site.siteUrl,
        providerUrl,
        config: site.config,
        distDir,
        db,
        app,
        site: sites[index]!,
        example: examples[index]!,
        async close() {
          if (closed) return;
          closed = true;
          await examples[index]!.close();
          open -= 1;
          if (open > 0) return;
          await running.close();
          await rm(work, { recursive: true, force: true });
        },
      };
    });
  } catch (error) {
    for (const example of examples) await example.close().catch(() => undefined);
    await provider?.close().catch(() => undefined);
    await rm(work, { recursive: true, force: true });
    throw error;
  }
}
