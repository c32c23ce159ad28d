// A spawned `push-kit serve` or `dev` is ready when it says so on its output. The wait is on that line or on the
// process's exit, whichever comes first, never on a fixed time. The deadline only ends a start that hangs: a `serve`
// start is one to two seconds of CPU, which a 2-core machine at load 20 to 40 (six test runs at once) stretches
// to half a minute and more, so a deadline of 30 s failed healthy starts there. A test that starts a process must
// allow it START_DEADLINE_MS (its hook or test timeout above it), so the failure read is this one, with the output.
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';

/** How long a start may take before it is called hung: several times a healthy start at load 40 on two cores. */
export const START_DEADLINE_MS = 120_000;

/**
 * The timeout of a hook or test that runs `processes` processes of the command line one after the other (a serve or
 * dev to its ready line, a command to its exit; processes started together count once): one of them may take the
 * whole deadline, each other one a slow start (30 s), so a start that is only slow never reaches the timeout and a
 * hung one fails on its deadline, with its output.
 */
export function timeoutForProcesses(processes: number): number {
  return START_DEADLINE_MS + Math.max(0, processes - 1) * 30_000 + 30_000;
}

export interface Ready<T> {
  /** What `ready` found in the output (a URL, a key...). */
  value: T;
  /** Everything the process printed so far, stdout and stderr, as it grows. */
  output: () => string;
}

/**
 * Resolves once `ready(output)` returns something (called on every chunk of stdout or stderr); rejects when the
 * process exits first, or when the deadline passes (then it is killed). The message names `what`, the seconds
 * waited, the machine's load and everything it printed.
 */
export function whenReady<T>(
  child: ChildProcess,
  ready: (output: string) => T | undefined,
  what: string,
  deadlineMs = START_DEADLINE_MS,
): Promise<Ready<T>> {
  let output = '';
  const started = Date.now();
  const why = (problem: string) =>
    new Error(`${what} ${problem} after ${((Date.now() - started) / 1000).toFixed(1)} s (load ${loadavg()[0]!.toFixed(1)}):\n${output}`);
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error?: Error, value?: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.off('close', onExit);
      if (error) reject(error);
      else resolve({ value: value as T, output: () => output });
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (settled) return;
      const value = ready(output);
      if (value !== undefined) settle(undefined, value);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      settle(why(`exited (${signal ?? `code ${code}`}) before it was ready`));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      settle(why('was not ready'));
    }, deadlineMs);
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    // 'close', not 'exit': the output it printed last (why it stopped) is read by then
    child.once('close', onExit);
  });
}
