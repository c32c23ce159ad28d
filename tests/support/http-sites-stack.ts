// Several plain-http sites on one provider, for the browser tests of per-site isolation: each site is the
// calligraphy config under its own name, hash and origin (`http://<name>.test:<port>`, mapped to 127.0.0.1 by
// the test browsers' host resolver rule, browser.ts, so not a secure context), with its child window on an origin of its own
// (`http://<name>.localhost:<provider port>`, which Chromium resolves to loopback and treats as secure).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSite } from '../../emit/build-site.ts';
import { startExampleSite, type RunningExampleSite } from '../../cli/dev/example-site-server.ts';
import { loadSites } from '../../server/sites.ts';
import { startProvider, type Provider } from '../../server/start-provider.ts';
import { embeddedDatabaseDir } from '../../server/state-paths.ts';
import { seedMigratedDatabase } from './migrated-database.ts';
import { retryOnPortInUse } from './port-retry.ts';
import { freePort } from './ports.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

export interface HttpSite {
  name: string;
  hash: string;
  /** `http://<name>.test:<port>`: the page that embeds push.js. */
  siteUrl: string;
  /** `http://<name>.localhost:<provider port>`: where its child window lives. */
  childWindowOrigin: string;
  example: RunningExampleSite;
}

export interface HttpSitesStack {
  providerUrl: string;
  provider: Provider;
  sites: HttpSite[];
  close(): Promise<void>;
}

export function startHttpSitesStack(names: string[], overrides: Record<string, unknown> = {}): Promise<HttpSitesStack> {
  return retryOnPortInUse(() => startHttpSitesStackOnce(names, overrides));
}

async function startHttpSitesStackOnce(names: string[], overrides: Record<string, unknown>): Promise<HttpSitesStack> {
  const work = await mkdtemp(join(tmpdir(), 'push-kit-e2e-sites-'));
  const providerPort = await freePort();
  const providerUrl = `http://localhost:${providerPort}`;
  const original = JSON.parse(await readFile(join(REPO, 'site-configs/calligraphy.json'), 'utf8')) as Record<string, unknown>;

  const planned = [];
  for (const name of names) {
    const siteUrl = `http://${name}.test:${await freePort()}`;
    const config = {
      ...original,
      $schema: join(REPO, 'schema/site-config.schema.json'),
      hash: `${name}-site-hash-01`,
      origin: siteUrl,
      serverSyncUrl: providerUrl,
      childWindowOrigin: `http://${name}.localhost:${providerPort}`,
      ...overrides,
      style: { ...(original.style as object | undefined), iconUrl: `${siteUrl}/icon.png`, ...(overrides.style as object | undefined) },
    };
    const file = join(work, `${name}.json`);
    await writeFile(file, JSON.stringify(config, null, 2));
    const built = await buildSite(file, join(work, 'dist'));
    if (!built.ok) throw new Error(`build failed: ${built.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}`);
    planned.push({ name, file, config, builtDir: built.dir });
  }

  const { sites, problems } = await loadSites(
    planned.map((site) => site.file),
    join(work, 'dist'),
  );
  if (problems.length) throw new Error(problems.join('\n'));
  const provider = await (async () => {
    // the work folder is the provider's state folder: its embedded database in work/db, started migrated
    await seedMigratedDatabase(embeddedDatabaseDir(work));
    return startProvider({ sites, port: providerPort, stateDir: work });
  })().catch(async (error: unknown) => {
    await rm(work, { recursive: true, force: true });
    throw error;
  });
  const running: HttpSite[] = [];
  const closeAll = async () => {
    for (const site of running) await site.example.close();
    await provider.close();
    await rm(work, { recursive: true, force: true });
  };
  try {
    for (const site of planned) {
      const example = await startExampleSite({
        root: join(REPO, 'examples/calligraphy-site'),
        bundleDir: site.builtDir,
        port: Number(new URL(site.config.origin).port),
      });
      running.push({
        name: site.name,
        hash: site.config.hash,
        siteUrl: site.config.origin,
        childWindowOrigin: site.config.childWindowOrigin,
        example,
      });
    }
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  }
  return {
    providerUrl,
    provider,
    sites: running,
    close: closeAll,
  };
}
