// `push-kit validate CONFIG... [--strict]`: every check `build` and `serve` make, without building or serving.
// Each file on its own (config/: schema, cross-field rules, expressions, warnings), then the files together:
// two sites may not share a hash, a name (the file's base name) or a child window origin.
import { configProblem, formatProblem, type ConfigProblem } from '../../config/errors.ts';
import { loadConfig, type LoadedConfig } from '../../config/load-config.ts';

export interface ValidateOptions {
  /** Warnings fail too (exit 1), for CI. */
  strict?: boolean;
}

/** The problems between files, each on the later file and naming the first one. */
function crossFileProblems(loaded: LoadedConfig[]): Map<LoadedConfig, ConfigProblem[]> {
  const problems = new Map<LoadedConfig, ConfigProblem[]>(loaded.map((entry) => [entry, []]));
  const firstOfName = new Map<string, string>();
  const firstOfHash = new Map<string, string>();
  const firstOfChildWindowOrigin = new Map<string, string>();
  for (const entry of loaded) {
    const own = problems.get(entry)!;
    const first = firstOfName.get(entry.name);
    if (first === undefined) firstOfName.set(entry.name, entry.file);
    else own.push(configProblem('E_DUPLICATE_NAME', '(file)', { name: entry.name, first }));
    if (!entry.ok) continue;
    const { hash, childWindowOrigin } = entry.config;
    const sameHash = firstOfHash.get(hash);
    if (sameHash === undefined) firstOfHash.set(hash, entry.file);
    else own.push(configProblem('E_DUPLICATE_HASH', 'hash', { hash, first: sameHash }));
    if (childWindowOrigin === undefined) continue;
    const sameOrigin = firstOfChildWindowOrigin.get(childWindowOrigin);
    if (sameOrigin === undefined) firstOfChildWindowOrigin.set(childWindowOrigin, entry.file);
    else own.push(configProblem('E_SHARED_CHILD_WINDOW_ORIGIN', 'childWindowOrigin', { origin: childWindowOrigin, first: sameOrigin }));
  }
  return problems;
}

/** Exit 0 when every config is valid; otherwise 1, with one `FILE: field.path: message` line per problem. */
export async function runValidate(files: string[], options: ValidateOptions = {}): Promise<number> {
  const loaded = await Promise.all(files.map((file) => loadConfig(file)));
  const between = crossFileProblems(loaded);
  let failed = false;
  for (const entry of loaded) {
    const problems = [...(entry.ok ? [] : entry.problems), ...between.get(entry)!];
    const warnings = entry.ok ? entry.warnings : [];
    for (const problem of problems) console.error(formatProblem(entry.file, problem));
    for (const warning of warnings) console.warn(`${formatProblem(entry.file, warning)} (warning)`);
    if (problems.length > 0 || (options.strict && warnings.length > 0)) failed = true;
    else console.log(`${entry.file}: valid`);
  }
  return failed ? 1 : 0;
}
