// The state folder holds the sites' private VAPID keys, the owner keys' hashes and the embedded database: a provider
// whose state another user of the machine can read or change would hand them its subscribers (an endpoint is a
// capability) and its keys. `push-kit serve` refuses to start then, naming the path and the command that fixes it,
// rather than fixing modes silently: a loose mode means someone else may have read the secrets already.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ServerError } from './errors.ts';
import { OPEN_TO_OTHERS } from './db/private-files.ts';
import { embeddedDatabaseDir } from './state-paths.ts';

const KEY_FOLDERS = ['keys', 'owner-keys'];

async function modeOf(path: string): Promise<{ mode: number; folder: boolean } | undefined> {
  try {
    const found = await stat(path);
    return { mode: found.mode & 0o7777, folder: found.isDirectory() };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function requirePrivate(path: string): Promise<void> {
  const found = await modeOf(path);
  if (!found || (found.mode & OPEN_TO_OTHERS) === 0) return;
  throw new ServerError('E_STATE_NOT_PRIVATE', {
    path,
    mode: found.mode.toString(8).padStart(4, '0'),
    fix: `chmod ${found.folder ? '700' : '600'} ${path}`,
  });
}

async function filesIn(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
    throw error;
  });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(folder, entry.name));
}

/**
 * Throws E_STATE_NOT_PRIVATE when the state folder, the embedded database's folder or a key file
 * (`keys/*.json`, `keys/<name>.legacy/` and its files, `owner-keys/*.json`) is open to group or others. What does
 * not exist yet passes.
 */
export async function requirePrivateState(stateDir: string): Promise<void> {
  await requirePrivate(stateDir);
  await requirePrivate(embeddedDatabaseDir(stateDir));
  for (const folder of KEY_FOLDERS) {
    for (const file of await filesIn(join(stateDir, folder))) await requirePrivate(file);
  }
  // a site's legacy VAPID keys (server/keys/key-ring.ts): keys/<name>.legacy/<id>.json
  for (const folder of await foldersIn(join(stateDir, 'keys'))) {
    await requirePrivate(folder);
    for (const file of await filesIn(folder)) await requirePrivate(file);
  }
}

async function foldersIn(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
    throw error;
  });
  return entries.filter((entry) => entry.isDirectory()).map((entry) => join(folder, entry.name));
}
