// `push-kit build CONFIG... [--out DIR]`: builds every config; a failing one prints its problems and makes
// the exit code 1 while the others still build.
import { buildSite } from '../emit/build-site.ts';
import { formatProblem } from '../config/load-config.ts';

function kilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

export async function runBuild(files: string[], options: { out: string }): Promise<number> {
  const tty = process.stdout.isTTY === true;
  let built = 0;
  let failed = 0;
  for (const file of files) {
    const result = await buildSite(file, options.out);
    if (!result.ok) {
      failed += 1;
      for (const problem of result.problems) console.error(formatProblem(file, problem));
      if (tty) console.log(`✗ ${result.name}`);
      continue;
    }
    built += 1;
    for (const warning of result.warnings) console.error(`${formatProblem(file, warning)} (warning)`);
    const push = result.files.find((entry) => entry.path === 'push.js');
    if (tty) console.log(`✓ ${result.name}  push.js ${kilobytes(push?.gzip ?? 0)} gzip`);
  }
  const summary = `${built} site${built === 1 ? '' : 's'} built into ${options.out}`;
  console.log(failed ? `${summary}, ${failed} failed` : summary);
  return failed ? 1 : 0;
}
