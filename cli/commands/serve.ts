// `push-kit serve`: the provider server for the hosted site configs, on the embedded database in
// .push-kit/db or on PostgreSQL (--database or DATABASE_URL). Runs until SIGINT / SIGTERM.
import { join } from 'node:path';
import { createApp } from '../../server/http/app.ts';
import { CampaignQueue } from '../../server/push/campaign-queue.ts';
import { prepareDashboard } from '../../server/dashboard/dashboard-build.ts';
import { closePushConnections } from '../../server/push/send.ts';
import { openDatabase } from '../../server/store/database.ts';
import { ensureOwnerKey, ownerKeyHashFromInit } from '../../server/store/owner-keys.ts';
import { loadSites } from '../../server/sites.ts';
import { cliError } from '../errors.ts';

export const STATE_DIR = '.push-kit';

export interface ServeOptions {
  port: string;
  host: string;
  database?: string;
  sites: string[];
  dist: string;
}

function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 0 || port > 65535)
    throw cliError('E_ARGUMENT', { option: 'port', rule: `"${value}" is not a port number (0 to 65535)` });
  return port;
}

/** A database URL for printing: the password is never shown. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://...';
  }
}

export async function runServe(options: ServeOptions): Promise<number> {
  const port = portNumber(options.port);
  const url = options.database ?? process.env.DATABASE_URL ?? undefined;
  const dataDir = join(STATE_DIR, 'db');

  const { sites, problems } = await loadSites(options.sites, options.dist);
  for (const problem of problems) console.error(problem);
  if (sites.length === 0) throw cliError('E_NO_SITES', { globs: options.sites });

  let db;
  try {
    db = await openDatabase({ url, dataDir });
  } catch (error) {
    throw cliError('E_DATABASE', { database: url ? redacted(url) : dataDir, reason: (error as Error).message });
  }
  const newKeys = new Map<string, string>();
  for (const site of sites) {
    const key = await ensureOwnerKey(db, site, await ownerKeyHashFromInit(STATE_DIR, site.name));
    if (key) newKeys.set(site.name, key);
  }
  const campaigns = new CampaignQueue(db, sites, STATE_DIR);
  const app = await createApp({ sites, db, campaigns });
  try {
    await app.listen({ port, host: options.host });
  } catch (error) {
    await db.close();
    throw cliError('E_LISTEN', { address: `${options.host}:${port}`, reason: (error as Error).message });
  }

  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const storage = url ? `PostgreSQL ${redacted(url)}` : `embedded database ${dataDir}`;
  console.log(`push-kit provider listening on http://${options.host}:${boundPort} (${storage})`);
  for (const site of sites) {
    console.log(`  site ${site.name}: hash ${site.hash}, origin ${site.config.origin}`);
    const key = newKeys.get(site.name);
    if (key) console.log(`  owner key for ${site.name} (shown once, keep it secret): ${key}`);
  }

  const shownHost = ['0.0.0.0', '::'].includes(options.host)
    ? 'localhost'
    : options.host.includes(':')
      ? `[${options.host}]`
      : options.host;
  console.log(`  owner dashboard: http://${shownHost}:${boundPort}/dashboard/`);
  prepareDashboard((line) => console.log(line));

  // Handlers first: a SIGTERM sent as soon as the line below is read must stop the provider cleanly.
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      console.log(`push-kit provider stopping (${signal})`);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const resumed = await campaigns.resumeUnfinished();
  if (resumed) console.log(`resuming ${resumed} unfinished campaign${resumed === 1 ? '' : 's'}`);
  console.log('Press Ctrl+C to stop.');

  await stopped;
  await app.close();
  await campaigns.close();
  await closePushConnections();
  await db.close();
  return 0;
}
