// The embedded database is one process's: PGlite has no locking of its own, and two processes writing one
// data folder would corrupt it. On Linux the lock is an abstract Unix socket named after the folder: binding it is
// atomic (of two simultaneous starts exactly one binds) and the kernel releases it when the process dies however it
// dies, so a restart after kill -9 (also as PID 1 in a container) starts at once. Elsewhere an exclusive lock file
// is created with the owner's pid inside; one left by a process that is gone is taken over.
// `<dataDir>.lock` always holds the owner's pid, so a refused start can say which process holds the database.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ServerError } from '../errors.ts';
import { processAlive } from '../process-alive.ts';

const inUse = (cause: unknown, dataDir: string, owner: number | undefined) =>
  ServerError.causedBy(cause, 'E_DATABASE_IN_USE', { dataDir, by: owner ? `process ${owner}` : 'another process' });

const pidFileOf = (dataDir: string) => `${dataDir}.lock`;

/** The pid in `<dataDir>.lock` when that process is alive; a start that lost the race by a moment waits for it. */
async function ownerPid(dataDir: string): Promise<number | undefined> {
  for (let waited = 0; waited <= 200; waited += 20) {
    const pid = Number((await readFile(pidFileOf(dataDir), 'utf8').catch(() => '')).trim());
    if (Number.isInteger(pid) && pid > 0 && isRunning(pid, dataDir)) return pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

/** The abstract socket's name: a folder's absolute path, hashed (names are limited to 107 bytes). */
export function lockSocketName(dataDir: string): string {
  return `\0push-kit-embedded-db-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 40)}`;
}

async function lockBySocket(dataDir: string): Promise<() => Promise<void>> {
  const server: Server = createServer((socket) => socket.destroy());
  try {
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(lockSocketName(dataDir), () => done());
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw inUse(error, dataDir, await ownerPid(dataDir));
    }
    throw error;
  }
  // The lock must not keep a process alive that has nothing else to do.
  server.unref();
  heldHere.add(resolve(dataDir));
  await writeFile(pidFileOf(dataDir), String(process.pid), { mode: 0o600 });
  return async () => {
    heldHere.delete(resolve(dataDir));
    await rm(pidFileOf(dataDir), { force: true });
    await new Promise<void>((done) => server.close(() => done()));
  };
}

/** Folders this process holds: a lock file naming this pid for another folder is a dead namesake's (PID 1 again). */
const heldHere = new Set<string>();

function isRunning(pid: number, dataDir: string): boolean {
  if (pid === process.pid) return heldHere.has(resolve(dataDir));
  return processAlive(pid);
}

/** The lock file appears with the pid already inside (hard link of a written file), so no start reads it empty. */
async function lockByFile(dataDir: string): Promise<() => Promise<void>> {
  const file = pidFileOf(dataDir);
  const draft = `${file}.${process.pid}`;
  await writeFile(draft, String(process.pid), { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        await link(draft, file);
        heldHere.add(resolve(dataDir));
        return async () => {
          heldHere.delete(resolve(dataDir));
          await rm(file, { force: true });
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = await ownerPid(dataDir);
        if (owner) throw inUse(error, dataDir, owner);
        await rm(file, { force: true });
      }
    }
    throw new Error(`cannot take the lock ${file}`);
  } finally {
    await rm(draft, { force: true });
  }
}

/** Takes the lock of `dataDir` for this process's lifetime; returns the function that releases it. */
export function lockEmbeddedDatabase(dataDir: string): Promise<() => Promise<void>> {
  return process.platform === 'linux' ? lockBySocket(dataDir) : lockByFile(dataDir);
}

/**
 * The pid of the live process that holds `dataDir`, or undefined when none does; takes nothing. On Linux the lock's
 * socket must be bound too, so a lock file left behind (or planted) with a live pid in it names nobody.
 */
export async function embeddedDatabaseHolder(dataDir: string): Promise<number | undefined> {
  const pid = Number((await readFile(pidFileOf(dataDir), 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0 || !isRunning(pid, dataDir)) return undefined;
  if (process.platform === 'linux') {
    const sockets = await readFile('/proc/net/unix', 'utf8').catch(() => undefined);
    if (sockets !== undefined && !new RegExp(` @${lockSocketName(dataDir).slice(1)}@*$`, 'm').test(sockets)) return undefined;
  }
  return pid;
}
