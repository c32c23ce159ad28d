// The `.push-kit` folder of a project: what the provider, `send`, `dev` and `init` keep beside the site
// configs. Secrets (keys/, owner-keys/) are written mode 0600 by their writers; nothing here is served.
//
//   .push-kit/keys/<name>.json        a site's VAPID key pair (RFC 8292), read by the sender
//   .push-kit/keys/<name>.legacy/     its legacy key pairs, `<id>.json` each (imports, rotations)
//   .push-kit/owner-keys/<name>.json  the SHA-256 of the owner key `push-kit init` printed
//   .push-kit/db/                     the embedded database (PGlite)
//   .push-kit/dashboard/              the built owner dashboard, one folder per hash of its sources
//   .push-kit/provider.json           the running provider's URL, pid and token (server/provider-file.ts)
import { join } from 'node:path';

/** The state folder, relative to the working directory of the command. */
export const STATE_DIR = '.push-kit';

export function vapidKeyFile(stateDir: string, siteName: string): string {
  return join(stateDir, 'keys', `${siteName}.json`);
}

/** The folder of a site's legacy VAPID key pairs (server/keys/key-ring.ts), one `<id>.json` each. */
export function legacyVapidKeyDir(stateDir: string, siteName: string): string {
  return join(stateDir, 'keys', `${siteName}.legacy`);
}

export function ownerKeyFile(stateDir: string, siteName: string): string {
  return join(stateDir, 'owner-keys', `${siteName}.json`);
}

export function embeddedDatabaseDir(stateDir: string): string {
  return join(stateDir, 'db');
}

export function dashboardCacheDir(stateDir: string): string {
  return join(stateDir, 'dashboard');
}

export function providerFile(stateDir: string): string {
  return join(stateDir, 'provider.json');
}
