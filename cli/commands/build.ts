// `push-kit build CONFIG... [--out DIR] [--json]`: builds every config; a failing one prints its problems and
// makes the exit code 1 while the others still build. With --json, stdout is one JSON summary for CI (per site:
// files and sizes, warnings, errors) and the problem lines still go to stderr. Several sites build at once (esbuild and compression run
// off the main thread); results print in the order the configs were given.
import { availableParallelism } from 'node:os';
import { buildSite, type BuildProblem, type SiteBuildResult } from '../../emit/build-site.ts';
import { formatProblem, type ConfigProblem } from '../../config/errors.ts';
import { siteNameOf } from '../../config/load-config.ts';
import { cliMessage, type CliErrorCode } from '../errors.ts';
import type { FileSizes } from '../../emit/sizes.ts';

export interface BuildOptions {
  out: string;
  json?: boolean;
}

/** One site of the `--json` summary. */
export interface SiteBuildSummary {
  config: string;
  name: string;
  ok: boolean;
  /** The site's output folder; absent when it did not build. */
  dir?: string;
  files: Array<{ path: string } & FileSizes>;
  warnings: SiteProblem[];
  errors: SiteProblem[];
}

/** A problem of one site: from its config, its build, or the command (a second config of the same name). */
type SiteProblem = Pick<ConfigProblem, 'path' | 'message'> & { code: ConfigProblem['code'] | CliErrorCode | BuildProblem['code'] };

/** A site's build, or its refusal here before building. */
type BuildOutcome = SiteBuildResult | { ok: false; name: string; problems: SiteProblem[] };

/** What `push-kit build --json` prints: `ok` is true when every site built (the exit code says the same). */
export interface BuildSummary {
  ok: boolean;
  out: string;
  built: number;
  failed: number;
  sites: SiteBuildSummary[];
}

function kilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/** Runs `tasks` with at most `limit` in flight; the promises resolve in the tasks' order. */
function limited<T>(tasks: Array<() => Promise<T>>, limit: number): Array<Promise<T>> {
  let next = 0;
  const results = tasks.map(() => {
    let settle!: (value: Promise<T>) => void;
    const promise = new Promise<T>((resolve) => {
      settle = resolve;
    });
    return { promise, settle };
  });
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      const run = tasks[index]!();
      results[index]!.settle(run);
      await run.catch(() => undefined);
    }
  };
  for (let i = 0; i < Math.min(limit, tasks.length); i += 1) void worker();
  return results.map((result) => result.promise);
}

export async function runBuild(files: string[], options: BuildOptions): Promise<number> {
  const tty = process.stdout.isTTY === true && !options.json;
  const summaries: SiteBuildSummary[] = [];
  const firstFileOfName = new Map<string, string>();
  const tasks = files.map((file) => {
    const name = siteNameOf(file);
    const first = firstFileOfName.get(name);
    if (first !== undefined) {
      const code = 'E_DUPLICATE_SITE_NAME' as const;
      const problem = { code, path: '(file)', message: cliMessage(code, { first, name, out: options.out }) };
      return async (): Promise<BuildOutcome> => ({ ok: false, name, problems: [problem] });
    }
    firstFileOfName.set(name, file);
    return (): Promise<BuildOutcome> => buildSite(file, options.out);
  });

  let built = 0;
  let failed = 0;
  const results = limited(tasks, Math.max(2, availableParallelism() * 2));
  for (const [index, pending] of results.entries()) {
    const file = files[index]!;
    const result = await pending;
    if (!result.ok) {
      failed += 1;
      summaries.push({ config: file, name: result.name, ok: false, files: [], warnings: [], errors: result.problems });
      for (const problem of result.problems) console.error(formatProblem(file, problem));
      if (tty) console.log(`✗ ${result.name}`);
      continue;
    }
    built += 1;
    summaries.push({
      config: file,
      name: result.name,
      ok: true,
      dir: result.dir,
      files: result.files,
      warnings: result.warnings,
      errors: [],
    });
    for (const warning of result.warnings) console.error(`${formatProblem(file, warning)} (warning)`);
    const push = result.files.find((entry) => entry.path === 'push.js');
    if (tty) console.log(`✓ ${result.name}  push.js ${kilobytes(push?.gzip ?? 0)} gzip`);
  }
  if (options.json) {
    const summary: BuildSummary = { ok: failed === 0, out: options.out, built, failed, sites: summaries };
    console.log(JSON.stringify(summary, null, 2));
    return failed ? 1 : 0;
  }
  const summary = `${built} site${built === 1 ? '' : 's'} built into ${options.out}`;
  console.log(failed ? `${summary}, ${failed} failed` : summary);
  return failed ? 1 : 0;
}
