// The package-lock.json of a fresh project that installs push-kit's tarball: push-kit's own production tree
// (this repository's lockfile minus dev-only packages) under it. An offline `npm install ./push-kit-*.tgz`
// cannot work from the npm cache an `npm ci` leaves: resolving version ranges needs the full registry
// documents, and `npm ci` caches only tarballs and abbreviated ones. With this lockfile and each package's
// registry URL, `npm ci --offline` installs exactly the tree `npm install` resolved for this repository.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

interface LockedPackage {
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  link?: boolean;
  dependencies?: Record<string, string>;
  [field: string]: unknown;
}

interface Lockfile {
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
}

/** The registry's tarball URL of `node_modules/@scope/name` at `version`. */
function registryTarball(path: string, version: string): string {
  const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  return `https://registry.npmjs.org/${name}/-/${basename(name)}-${version}.tgz`;
}

export async function consumerLockfile(repositoryLockfile: string, tarball: string, projectName: string): Promise<string> {
  const lock = JSON.parse(await readFile(repositoryLockfile, 'utf8')) as Lockfile;
  const root = lock.packages['']!;
  const packages: Record<string, LockedPackage> = {};
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev || entry.link) continue;
    packages[path] = { ...entry, resolved: entry.resolved ?? registryTarball(path, entry.version!) };
  }
  const integrity = `sha512-${createHash('sha512')
    .update(await readFile(tarball))
    .digest('base64')}`;
  const spec = `file:${tarball}`;
  const consumer = {
    name: projectName,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: projectName, dependencies: { 'push-kit': spec } },
      'node_modules/push-kit': {
        version: root.version,
        resolved: spec,
        integrity,
        license: root.license,
        dependencies: root.dependencies,
        bin: root.bin,
        engines: root.engines,
      },
      ...packages,
    },
  };
  return `${JSON.stringify(consumer, null, 2)}\n`;
}
