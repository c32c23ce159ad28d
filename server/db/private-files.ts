// The embedded database holds subscribers' endpoints (capabilities), secret hashes and orders, so no other user of
// the machine may read or change it. PGlite writes through Node's fs with the modes PostgreSQL asks for and the
// process umask: the template initdb made is 0755/0666, and files it opens with fopen later (pg_internal.init,
// pg_stat/) follow the umask. The data folder is kept 0700, which alone shuts others out (they cannot traverse it),
// and its contents are narrowed to the owner after a copy, after an open and after a close.
import { chmod, lstat, readdir } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join } from 'node:path';

/** Permission bits of group and others. */
export const OPEN_TO_OTHERS = 0o077;

const isGone = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Takes group and others' permissions off `path` itself, whose lstat is `found`. */
async function narrowItself(path: string, found: Stats): Promise<void> {
  if (found.mode & OPEN_TO_OTHERS) await chmod(path, found.mode & 0o700);
}

async function narrow(path: string): Promise<void> {
  const found = await lstat(path);
  // A symbolic link's own mode means nothing; what it points at is not ours to change.
  if (found.isSymbolicLink()) return;
  // a folder first: from then on nobody else can reach what is inside
  await narrowItself(path, found);
  if (!found.isDirectory()) return;
  const entries = await readdir(path);
  await Promise.all(entries.map((entry) => makePrivate(join(path, entry))));
}

/**
 * Removes every group and other permission from `path` and, when it is a folder, everything inside it. A file
 * PostgreSQL removes meanwhile (a recycled WAL segment) is skipped.
 */
export async function makePrivate(path: string): Promise<void> {
  await narrow(path).catch((error: unknown) => {
    if (!isGone(error)) throw error;
  });
}

/** Removes every group and other permission from the folder `path` itself, not from what it holds. */
export async function makeFolderPrivate(path: string): Promise<void> {
  await narrowItself(path, await lstat(path));
}
