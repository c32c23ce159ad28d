// A new embedded database for a test that is not about making one: a copy of an embedded database that
// `openDatabase` made and migrated once (per set of migrations and PGlite version), instead of PGlite's empty
// template and every migration again. Migrating costs about a second of CPU per database, and the integration and
// e2e files open a hundred or more; the copy is the same folder as what `openDatabase` leaves, made by the same
// code. The provider still opens it itself: its lock, its migration check (nothing left to apply) and the rest
// of its start run as always. Tests of making a database (server-storage's, the faults files, `init` then `serve`
// or `dev` in a new project) open empty folders and still run every migration; a command-line test that is not
// about it gives its project one (cli-process.ts `seedProjectDatabase`).
//
// The template lives in `$PUSHKIT_TEST_DB_TEMPLATES` (tests/run-all.sh gives each run its own, removed at its end),
// else in the system's temporary folder; it is built beside its place and renamed into it, so concurrent test
// files never copy a half-made one.
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EMBEDDED_SHARED_BUFFERS, openDatabase } from '../../server/db/database.ts';
import { MIGRATIONS } from '../../server/db/migrations.ts';

const require = createRequire(import.meta.url);

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function templateKey(): Promise<string> {
  const packageJson = join(dirname(dirname(require.resolve('@electric-sql/pglite'))), 'package.json');
  const { version } = JSON.parse(await readFile(packageJson, 'utf8')) as { version: string };
  return createHash('sha256')
    .update(JSON.stringify({ version, buffers: EMBEDDED_SHARED_BUFFERS, migrations: MIGRATIONS }))
    .digest('hex')
    .slice(0, 16);
}

let template: Promise<string> | undefined;

/** The migrated template's folder, made now when this run (or this machine, outside run-all.sh) has none. */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const root = process.env.PUSHKIT_TEST_DB_TEMPLATES || join(tmpdir(), 'push-kit-test-db-templates');
    const folder = join(root, `migrated-${await templateKey()}`);
    if (await exists(folder)) return folder;
    await mkdir(root, { recursive: true });
    const building = `${folder}.${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      const db = await openDatabase({ dataDir: building });
      await db.close();
      // another file may have finished it first: then its copy is as good as this one
      await rename(building, folder).catch(async (error: unknown) => {
        if (!(await exists(folder))) throw error;
      });
    } finally {
      await rm(building, { recursive: true, force: true });
    }
    return folder;
  })();
  template.catch(() => (template = undefined));
  return template;
}

/**
 * Copies the template's tree (folders 0700, files with their own 0600) with every file's copy started at once:
 * fs.cp stats and copies its 1,150 files one after another in JavaScript, about twice the CPU (0.5 s more a copy).
 */
async function copyTree(from: string, to: string): Promise<void> {
  // recursive: an empty data folder the caller made is filled as it is
  await mkdir(to, { recursive: true, mode: 0o700 });
  const entries = await readdir(from, { withFileTypes: true });
  await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? copyTree(join(from, entry.name), join(to, entry.name)) : copyFile(join(from, entry.name), join(to, entry.name)),
    ),
  );
}

/**
 * Makes `dataDir` a migrated, empty embedded database (a copy of the template) when it does not exist yet or is
 * empty; a folder that holds anything is left as it is.
 */
export async function seedMigratedDatabase(dataDir: string): Promise<void> {
  if ((await readdir(dataDir).catch(() => [])).length > 0) return;
  const folder = await migratedTemplate();
  await mkdir(dirname(dataDir), { recursive: true, mode: 0o700 });
  await copyTree(folder, dataDir);
}
