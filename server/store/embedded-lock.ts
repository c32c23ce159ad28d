// The embedded database is one process's: PGlite has no locking of its own, and two processes writing one
// data folder would corrupt it. A lock file holds the owner's pid; a lock left by a killed process is taken over.
import { open, readFile, rm } from 'node:fs/promises';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock of `dataDir` for this process; returns the function that releases it. */
export async function lockEmbeddedDatabase(dataDir: string): Promise<() => Promise<void>> {
  const file = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (owner && isRunning(owner)) {
        throw new Error(
          `the embedded database ${dataDir} is in use by process ${owner}; stop it, or run several processes on PostgreSQL (--database postgres://...)`,
          { cause: error },
        );
      }
      await rm(file, { force: true });
    }
  }
  throw new Error(`cannot take the lock ${file}`);
}
