// A new embedded database is created in a short-lived child process. PGlite's first start runs initdb inside
// the WebAssembly heap, which never shrinks: a provider that did it itself kept ~700 MB resident for its whole
// life, one that opens an initialised folder ~200 MB (bench/README.md, memory). The child initialises a sibling
// folder, and the folder is renamed into place only once complete, so a start killed half-way leaves no
// half-made database behind: the next start begins again.
import { execFile } from 'node:child_process';
import { readdir, rename, rm, rmdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

const run = promisify(execFile);

// CommonJS, so that it runs under plain `node -e` whatever loader the parent has (tsx, vitest, none). Its
// stdin is a pipe from the parent: when that closes, the parent is gone, and the child stops too.
const INITDB_SCRIPT = `
const [pglite, dataDir, params] = process.argv.slice(1);
process.stdin.on('end', () => process.exit(1)).resume();
require(pglite).PGlite.create(dataDir, { startParams: JSON.parse(params) || undefined })
  .then((db) => db.close())
  .then(() => process.exit(0), (error) => { console.error(error && error.message || String(error)); process.exit(1); });
`;

async function isEmptyFolder(dir: string): Promise<boolean> {
  return (await readdir(dir)).length === 0;
}

/**
 * Initialises the embedded database in `dataDir` when the folder is empty; a folder that holds anything is left
 * to PGlite as it is. The caller holds the folder's lock.
 */
export async function initialiseEmbeddedDatabase(dataDir: string, startParams: string[] | undefined): Promise<void> {
  if (!(await isEmptyFolder(dataDir))) return;
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const building = `${dataDir}.initdb`;
  await rm(building, { recursive: true, force: true });
  try {
    await run(process.execPath, ['-e', INITDB_SCRIPT, pglite, building, JSON.stringify(startParams ?? null)], {
      maxBuffer: 16 * 1024 * 1024,
    });
    // The data folder is empty (checked above) and its lock is ours.
    await rmdir(dataDir);
    await rename(building, dataDir);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`could not create the embedded database in ${dataDir}: ${stderr || (error as Error).message}`, {
      cause: error,
    });
  }
}
