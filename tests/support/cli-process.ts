// The real `push-kit` command line run as an owner runs it, in a project folder: one command to its exit, or
// `serve` until it listens. The environment leaves out what would send a command elsewhere (DATABASE_URL,
// PUSHKIT_OWNER_KEY) and colours.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedMigratedDatabase } from './migrated-database.ts';
import { whenReady } from './process-ready.ts';

export const CLI = fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

const quietEnv = (): NodeJS.ProcessEnv => ({ ...process.env, DATABASE_URL: '', PUSHKIT_OWNER_KEY: '', NO_COLOR: '1' });

/**
 * Gives `project` the embedded database (.push-kit/db) a first command would make, already migrated: for a test
 * that is not about making one (each command still opens it, checks its migrations and locks it). The first
 * command of an unseeded project makes it: about a second and a half more of CPU.
 */
export function seedProjectDatabase(project: string): Promise<void> {
  return seedMigratedDatabase(join(project, '.push-kit', 'db'));
}

/** Runs `push-kit ...args` in `project` to its exit. */
export function runCli(project: string, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: project, env: quietEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** SIGTERM, resolved once it has exited. */
  stop: () => Promise<void>;
}

/** Starts `push-kit serve --port 0` in `project` on the embedded database; resolves its URL once it listens. */
export async function startServe(project: string): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { cwd: project, env: quietEnv() });
  const stop = async () => {
    child.kill('SIGTERM');
    if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
  };
  // a start that never says it listens is killed at the deadline, not left holding its port and database
  const { value: url } = await whenReady(
    child,
    (output) => (output.includes('Press Ctrl+C') ? /listening on (http:\/\/[\d.]+:\d+) /.exec(output)?.[1] : undefined),
    'push-kit serve',
  );
  return { child, url, stop };
}
