// `push-kit dev` as a process: started, read until it prints its URLs, stopped with SIGTERM.
import { spawn } from 'node:child_process';
import { whenReady } from './process-ready.ts';

export interface DevProcess {
  /** The page that embeds the bundle, `http://localhost:<port>` (the local page or the example site). */
  site: string;
  /** The provider, `http://localhost:<port>`. */
  provider: string;
  output(): string;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Runs `command` (the push-kit bin, with `dev` and its arguments) in `cwd` until dev prints its URLs. */
export async function startDev(
  command: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: '' },
): Promise<DevProcess> {
  const child = spawn(command[0]!, command.slice(1), { cwd, env });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    return exited;
  };
  const { value, output } = await whenReady(
    child,
    (printed) => {
      if (!printed.includes('press Ctrl-C to stop')) return undefined;
      const site = /^ {2}(?:local page|example site|site) +(http:\/\/localhost:\d+)\//m.exec(printed)![1]!;
      const provider = /^ {2}provider +(http:\/\/localhost:\d+)\//m.exec(printed)![1]!;
      return { site, provider };
    },
    'push-kit dev',
  );
  return { ...value, output, stop };
}
