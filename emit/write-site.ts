// Atomic per-site output: everything is written into a temp folder inside the out dir, then swapped into
// `<out>/<name>/`. A failure leaves no partial folder and the previous good build stays until the swap. The temp
// folder is made with mkdir, not mkdtemp (always 0700): the site's folder, once swapped in, follows the umask like
// everything in it, so a web server running as another user can read push.js (issue 28, item 3).
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface OutputFile {
  path: string;
  content: string;
}

export async function writeSiteAtomically(outDir: string, name: string, files: OutputFile[]): Promise<string> {
  await mkdir(outDir, { recursive: true });
  const target = join(outDir, name);
  const staging = join(outDir, `.${name}.tmp-${randomBytes(6).toString('hex')}`);
  await mkdir(staging);
  let previous: string | undefined;
  try {
    for (const file of files) {
      const path = join(staging, file.path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.content);
    }
    previous = `${staging}.old`;
    try {
      await rename(target, previous);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      previous = undefined;
    }
    try {
      await rename(staging, target);
    } catch (error) {
      if (previous) await rename(previous, target);
      previous = undefined;
      throw error;
    }
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  if (previous) await rm(previous, { recursive: true, force: true });
  return target;
}
