// The provider's database as `serve`, `send` and the package open it: a failure to open is E_DATABASE_OPEN naming
// the database (a URL without its password) and why, the driver's error kept as its cause.
import { ServerError } from '../errors.ts';
import { openDatabase, type Database } from './database.ts';
import { redactedDatabaseUrl } from './database-url.ts';

export async function openProviderDatabase(url: string | undefined, dataDir: string, oneShot = false): Promise<Database> {
  try {
    return await openDatabase({ url, dataDir, oneShot });
  } catch (error) {
    throw ServerError.causedBy(error, 'E_DATABASE_OPEN', {
      database: url ? redactedDatabaseUrl(url) : dataDir,
      reason: (error as Error).message,
    });
  }
}
