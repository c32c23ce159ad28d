// Where `send` and `campaigns` go: straight to the database, or to the owner API of a running provider. On the
// embedded database a provider (`serve`, `dev`) of this folder holds it; its file `.push-kit/provider.json`
// (server/provider-file.ts) names its URL and a token, so no owner key is needed. `--key` (or PUSHKIT_OWNER_KEY)
// asks a provider with the site's owner key: `--provider`, else the running one, else the site's serverSyncUrl.
import { cliError, isDatabaseInUse } from './errors.ts';
import { openDatabase, type Database } from '../server/db/database.ts';
import { readRunningProvider, type ProviderFile } from '../server/provider-file.ts';
import { embeddedDatabaseDir, STATE_DIR } from '../server/state-paths.ts';

export interface RouteOptions {
  key?: string;
  provider?: string;
  database?: string;
}

export type Route =
  | { via: 'provider'; url: string; key: string }
  /** `ignored`: why a provider file there is not believed, for the advice when the database is in use. */
  | { via: 'database'; database?: string; ignored?: string };

/** The origin a URL names, `localhost` spelt as 127.0.0.1. */
function originOf(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (parsed.hostname === 'localhost') parsed.hostname = '127.0.0.1';
  return parsed.origin;
}

/** The provider file's provider, refusing a site it does not host (its owner API would say only "wrong key"). */
function hosting(found: ProviderFile, site: string): Route {
  const hosted = Object.keys(found.ownerKeys);
  if (!hosted.includes(site))
    throw cliError('E_SITE', {
      problem: `--site: the provider running at ${found.url} hosts no site named "${site}" (sites: ${hosted.join(', ') || 'none'})`,
    });
  return { via: 'provider', url: found.url, key: found.token };
}

export async function routeOf(site: string, options: RouteOptions, serverSyncUrl: () => Promise<string>): Promise<Route> {
  const key = options.key ?? (process.env.PUSHKIT_OWNER_KEY || undefined);
  const database = options.database ?? (process.env.DATABASE_URL || undefined);
  // on PostgreSQL the command opens the database itself, whatever runs
  const running = database ? undefined : await readRunningProvider(STATE_DIR);
  const found = running?.provider;
  if (key) return { via: 'provider', url: options.provider ?? found?.url ?? (await serverSyncUrl()), key };
  if (options.provider !== undefined) {
    // the token goes only where the provider file says the provider is
    if (found && originOf(options.provider) === originOf(found.url)) return hosting(found, site);
    throw cliError('E_ARGUMENT', {
      option: 'provider',
      rule: `needs the site's owner key (--key or PUSHKIT_OWNER_KEY): ${options.provider} is not the provider running on ${STATE_DIR}`,
    });
  }
  if (found) return hosting(found, site);
  return { via: 'database', database, ignored: running?.ignored };
}

/** The advice for a database a provider holds, when its provider file could not be used. */
export function databaseInUseAdvice(route: Route, command: string): string {
  const ignored = route.via === 'database' && route.ignored ? ` (${route.ignored})` : '';
  return `A provider is running on it${ignored}: let it answer, with its URL and the site's owner key: ${command} --provider <URL> --key <owner key>`;
}

/**
 * The database a command runs on when no provider answers for it; one a provider holds is refused with the advice
 * to ask that provider (`command`: the command line it names, as `push-kit members ... --site S`).
 */
export async function openRouteDatabase(route: Route & { via: 'database' }, command: string): Promise<Database> {
  const dataDir = embeddedDatabaseDir(STATE_DIR);
  try {
    return await openDatabase({ url: route.database, dataDir, oneShot: true });
  } catch (error) {
    throw cliError('E_DATABASE', {
      database: route.database ? 'given' : dataDir,
      reason: (error as Error).message,
      ...(isDatabaseInUse(error) ? { hint: databaseInUseAdvice(route, command) } : {}),
    });
  }
}
