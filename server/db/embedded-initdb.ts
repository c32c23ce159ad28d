// A new embedded database is never initialised in the provider's own process. PGlite's first start runs initdb
// inside the WebAssembly heap, which never shrinks: a provider that did it itself kept ~700 MB resident for its
// whole life, one that opens an initialised folder ~200 MB (bench/README.md, memory). initdb runs once per user
// and PGlite version in a short-lived child process, into a template folder in the user's cache
// (`$PUSHKIT_CACHE_DIR`, else `$XDG_CACHE_HOME/push-kit`, else `~/.cache/push-kit`); a new database is a copy of
// it. Folders are built beside their place and renamed into it only once complete, so a start killed half-way
// leaves no half-made template or database behind. PGlite writes the template with the umask's modes (0755/0666
// files), so a template and a new database are made private (private-files.ts) before they are renamed into place.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { makePrivate } from './private-files.ts';
import { processAlive } from '../process-alive.ts';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

// CommonJS, so that it runs under plain `node -e` whatever loader the parent has (tsx, vitest, none). Its
// stdin is a pipe from the parent: when that closes, the parent is gone, and the child stops too.
const INITDB_SCRIPT = `
const [pglite, dataDir, params] = process.argv.slice(1);
process.stdin.on('end', () => process.exit(1)).resume();
// initdb runs PostgreSQL's code once: optimising it costs more than it saves (6.2 s of CPU with, 3.9 s without;
// database.ts WASM_TIERING_BUDGET). Set here, not on the command line: a Node without the flag only says so.
require('node:v8').setFlagsFromString('--liftoff-only');
require(pglite).PGlite.create(dataDir, { startParams: JSON.parse(params) || undefined })
  .then((db) => db.close())
  .then(() => process.exit(0), (error) => { console.error(error && error.message || String(error)); process.exit(1); });
`;

export const CACHE_DIR_ENV = 'PUSHKIT_CACHE_DIR';

function cacheRoot(): string {
  return process.env[CACHE_DIR_ENV] || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'push-kit');
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (found) => found.isDirectory(),
    () => false,
  );
}

async function initdb(folder: string, startParams: string[] | undefined): Promise<void> {
  try {
    await run(
      process.execPath,
      ['-e', INITDB_SCRIPT, require.resolve('@electric-sql/pglite'), folder, JSON.stringify(startParams ?? null)],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(stderr || (error as Error).message, { cause: error });
  }
}

/** The initialised template for these start parameters, made now if this user has none yet. */
async function template(startParams: string[] | undefined): Promise<string> {
  // the package's own package.json (not among its exports): dist/index.cjs is two folders below it
  const packageJson = join(dirname(dirname(require.resolve('@electric-sql/pglite'))), 'package.json');
  const { version } = JSON.parse(await readFile(packageJson, 'utf8')) as { version: string };
  const key = createHash('sha256')
    .update(JSON.stringify({ version, startParams: startParams ?? null }))
    .digest('hex')
    .slice(0, 16);
  const root = cacheRoot();
  const folder = join(root, `pglite-initdb-${key}`);
  if (await isFolder(folder)) return folder;
  await mkdir(root, { recursive: true, mode: 0o700 });
  // what a start killed while building left behind
  for (const entry of await readdir(root)) {
    const pid = Number(/^pglite-initdb-\w+\.(\d+)-\w+$/.exec(entry)?.[1]);
    // (its initdb child may still be winding down: what cannot go now goes at a later start)
    if (pid && !processAlive(pid)) await rm(join(root, entry), { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
  const building = `${folder}.${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await initdb(building, startParams);
    await makePrivate(building);
    // another process may have finished the same template first: then its copy is as good as ours
    await rename(building, folder).catch(async (error: unknown) => {
      if (!(await isFolder(folder))) throw error;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return folder;
}

/**
 * Initialises the embedded database in `dataDir` when the folder is empty; a folder that holds anything is left
 * to PGlite as it is. The caller holds the folder's lock.
 */
export async function initialiseEmbeddedDatabase(dataDir: string, startParams: string[] | undefined): Promise<void> {
  if ((await readdir(dataDir)).length > 0) return;
  const building = join(dirname(dataDir), `${basename(dataDir)}.initdb`);
  await rm(building, { recursive: true, force: true });
  try {
    // Without a usable cache (no home folder, a read-only one) initdb makes this database alone.
    const made = await template(startParams).catch(() => undefined);
    if (made) await cp(made, building, { recursive: true });
    else await initdb(building, startParams);
    // a template made before its modes were narrowed is still 0755/0666, and cp keeps modes
    await makePrivate(building);
    // The data folder is empty (checked above) and its lock is ours.
    await rmdir(dataDir);
    await rename(building, dataDir);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw new Error(`could not create the embedded database in ${dataDir}: ${(error as Error).message}`, { cause: error });
  }
}
