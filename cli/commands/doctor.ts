// `push-kit doctor [CONFIG...]`: checks each deployed site from the outside (its pages, push.js, the worker at
// swPath, the manifest) and the provider from the inside (it answers, over https, with CORS for the site; the
// site's VAPID key file, subject and token; the clocks; the state folder), and prints what is wrong with the fix.
// Exit 0 only when every check passes (a warning fails only with --strict); --json prints
// `{ checks: [{ id, site, status, message, fix }] }` for CI (docs/ci.md). The checks: cli/doctor/.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigProblem } from '../../config/errors.ts';
import { loadConfig } from '../../config/load-config.ts';
import { STATE_DIR } from '../../server/state-paths.ts';
import { finding, type DoctorCheck, type DoctorContext } from '../doctor/check.ts';
import { keyChecks } from '../doctor/keys.ts';
import { providerChecks } from '../doctor/provider.ts';
import { serviceWorkerChecks } from '../doctor/service-worker.ts';
import { siteFileChecks } from '../doctor/site-files.ts';
import { cliError } from '../errors.ts';

export interface DoctorOptions {
  /** Print `{ checks: [...] }` as JSON, for CI. */
  json?: boolean;
  /** Warnings fail too (exit 1). */
  strict?: boolean;
  /** The folder of `push-kit build` output to compare the served files with. */
  dist?: string;
  /** Milliseconds each network call may take. */
  timeoutMs?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_CONFIGS = 'site-configs';

/** The project's site configs (site-configs/*.json) when none are named. */
async function defaultConfigs(): Promise<string[]> {
  const names = await readdir(DEFAULT_CONFIGS).catch(() => [] as string[]);
  const files = names.filter((name) => name.endsWith('.json')).sort();
  if (files.length === 0) throw cliError('E_NO_SITES', { globs: [`${DEFAULT_CONFIGS}/*.json`] });
  return files.map((name) => join(DEFAULT_CONFIGS, name));
}

function timeoutOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1)
    throw cliError('E_ARGUMENT', { option: 'timeout-ms', rule: `must be a whole number of milliseconds above 0, got "${value}"` });
  return ms;
}

/** A config's problems as findings: the checks they belong to (mixed content, the VAPID subject), else `config`. */
function configFindings(file: string, site: string, problems: ConfigProblem[]): DoctorCheck[] {
  return problems.map((problem) => {
    if (problem.code === 'E_VAPID_SUBJECT') return finding('CONFIG_SUBJECT', site, { file, problem: problem.message });
    if (problem.code === 'E_MIXED_CONTENT')
      return finding('CONFIG_MIXED_CONTENT', site, { file, field: problem.path, problem: problem.message });
    return finding('CONFIG_INVALID', site, { file, problem: `${problem.path}: ${problem.message}` });
  });
}

/** Every check of one site; an invalid config is reported alone (the other checks would read a wrong config). */
async function checkSite(file: string, options: { dist: string; timeoutMs: number }): Promise<DoctorCheck[]> {
  const loaded = await loadConfig(file);
  if (!loaded.ok) return configFindings(file, loaded.name, loaded.problems);
  const context: DoctorContext = {
    site: loaded.name,
    configFile: file,
    config: loaded.config,
    dist: options.dist,
    stateDir: STATE_DIR,
    timeoutMs: options.timeoutMs,
  };
  const [files, worker, provider] = await Promise.all([siteFileChecks(context), serviceWorkerChecks(context), providerChecks(context)]);
  const keys = await keyChecks(context, provider.providerNow);
  // a derived subject Apple refuses is the vapid-subject check's
  const warnings = loaded.warnings
    .filter((warning) => warning.code !== 'W_VAPID_SUBJECT_DERIVED')
    .map((warning) => finding('CONFIG_WARNING', loaded.name, { file, problem: `${warning.path}: ${warning.message}` }));
  const config = warnings.length > 0 ? warnings : [finding('CONFIG_OK', loaded.name, { file })];
  return [...config, ...files, ...worker, ...provider.checks, ...keys];
}

const LABEL = { pass: 'pass', warn: 'warn', fail: 'FAIL' } as const;

function printText(files: string[], results: DoctorCheck[][]): void {
  const width = Math.max(...results.flat().map((check) => check.id.length));
  results.forEach((checks, index) => {
    console.log(`${checks[0]?.site ?? files[index]} (${files[index]})`);
    for (const check of checks) {
      console.log(`  ${LABEL[check.status]}  ${check.id.padEnd(width)}  ${check.message}`);
      if (check.fix !== null) console.log(`  ${' '.repeat(4 + 2 + width)}  fix: ${check.fix}`);
    }
  });
  const all = results.flat();
  const count = (status: DoctorCheck['status']) => all.filter((check) => check.status === status).length;
  console.log(`doctor: ${count('fail')} failed, ${count('warn')} warnings, ${count('pass')} passed`);
}

/** Exit 0 when every check of every site passed (and, with --strict, none warned); else 1. */
export async function runDoctor(configs: string[], options: DoctorOptions = {}): Promise<number> {
  const timeoutMs = timeoutOf(options.timeoutMs);
  const files = configs.length > 0 ? configs : await defaultConfigs();
  const dist = options.dist ?? 'dist';
  const results = await Promise.all(files.map((file) => checkSite(file, { dist, timeoutMs })));
  if (options.json) console.log(JSON.stringify({ checks: results.flat() }, null, 2));
  else printText(files, results);
  const all = results.flat();
  const failed = all.some((check) => check.status === 'fail' || (options.strict === true && check.status === 'warn'));
  return failed ? 1 : 0;
}
