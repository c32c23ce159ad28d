// `push-kit dev` as a process: started, read until it prints its URLs, stopped with SIGTERM.
import { spawn } from 'node:child_process';

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
export function startDev(
  command: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: '' },
): Promise<DevProcess> {
  const child = spawn(command[0]!, command.slice(1), { cwd, env });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dev did not start:\n${output}`));
    }, 60_000);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`dev exited with ${code} before it started:\n${output}`));
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('press Ctrl-C to stop')) return;
      clearTimeout(timer);
      const site = /^ {2}(?:local page|example site|site) +(http:\/\/localhost:\d+)\//m.exec(output)![1]!;
      const provider = /^ {2}provider +(http:\/\/localhost:\d+)\//m.exec(output)![1]!;
      resolve({ site, provider, output: () => output, stop });
    });
  });
}
