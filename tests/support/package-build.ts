// The compiled package (dist-pkg/, `npm run build`) as the test suite builds it once: tests/run-all.sh builds
// it before the tests, runs every spawned `push-kit` on it (PUSHKIT_COMPILED_CLI=1, bin/push-kit.js) and passes
// the fingerprint of the tree it built from (PUSHKIT_TEST_PACKAGE_BUILT), so package-install.test.ts packs that
// build rather than building again, and only while the tree is still the one built.
// `npx tsx tests/support/package-build.ts` prints the fingerprint.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A hash of every file of the checkout the build or the package may read: what git tracks or would track
 * (untracked, not ignored), with their contents, leaving out tests/ and bench/. Installed dependencies are
 * `npm ci`'s, fixed by package-lock.json.
 */
export function packageSourceFingerprint(): string {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPOSITORY,
    maxBuffer: 64 * 1024 * 1024,
  });
  const files = [...new Set(listed.toString('utf8').split('\0'))].filter((file) => file && !/^(tests|bench)\//.test(file)).sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\0`);
    try {
      hash.update(readFileSync(join(REPOSITORY, file)));
    } catch {
      hash.update('\0deleted\0'); // tracked, deleted in the working tree
    }
  }
  return hash.digest('hex');
}

/**
 * True when the suite built dist-pkg from this very tree. A tree edited since (the variable set, the
 * fingerprint changed) is an error: building again would replace dist-pkg under the tests running on it.
 */
export function suiteBuiltThisTree(): boolean {
  const built = process.env.PUSHKIT_TEST_PACKAGE_BUILT;
  if (!built) return false;
  if (built !== packageSourceFingerprint()) {
    throw new Error('the sources changed since tests/run-all.sh built dist-pkg: run the suite again on an unchanged tree');
  }
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) console.log(packageSourceFingerprint());
