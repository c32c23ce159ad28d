// `push-kit serve --workers N` as an operator runs it: a real primary process and its workers on one port.
// The PostgreSQL case needs the server the test command provides (PUSHKIT_TEST_DATABASE_URL).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { START_DEADLINE_MS, timeoutForProcesses, whenReady } from '../support/process-ready.ts';
import { tempDir } from '../support/server.ts';
import { createThrowawayDatabase } from '../support/throwaway-postgres.ts';

const BIN = fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url));
const CONFIG = fileURLToPath(new URL('../../site-configs/calligraphy.json', import.meta.url));
const serverUrl = process.env.PUSHKIT_TEST_DATABASE_URL;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Serve {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
  /** Resolves when the output matches `pattern`; rejects when the process exits first or at a start's deadline. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
}

async function serve(args: string[], env: Record<string, string> = {}): Promise<Serve> {
  const dir = await tempDir('pushkit-workers-');
  cleanups.push(dir.remove);
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--sites', CONFIG, ...args], {
    cwd: dir.path,
    env: { ...process.env, DATABASE_URL: '', ...env },
  });
  let output = '';
  const onData = (chunk: Buffer) => (output += chunk.toString());
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exit;
  });
  return {
    child,
    output: () => output,
    exit,
    // on everything printed so far (onData, added first, has run by the time whenReady's listener asks)
    waitFor: async (pattern) =>
      pattern.exec(output) ?? (await whenReady(child, () => pattern.exec(output) ?? undefined, `push-kit serve (${pattern})`)).value,
  };
}

/** GET /health on a connection of its own (so the cluster may hand it to any worker): the worker that answered. */
function answeringWorker(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/health', agent: false }, (response) => {
      response.resume();
      response.on('end', () =>
        response.statusCode === 200 ? resolve(String(response.headers['x-pushkit-worker'])) : reject(new Error(`${response.statusCode}`)),
      );
    }).on('error', reject);
  });
}

/** The pids of a process's children, from /proc. */
function childPids(parent: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number);
}

// each test may take a start's deadline; the PostgreSQL one three (the primary, its workers, a replaced worker)
describe('push-kit serve --workers', { timeout: timeoutForProcesses(1) }, () => {
  it('refuses several workers on the embedded database, naming the option and what to do', async () => {
    const run = await serve(['--workers', '2']);
    expect(await run.exit).toBe(1);
    expect(run.output()).toContain(
      '--workers: 2 workers need PostgreSQL (--database postgres://... or DATABASE_URL): the embedded database (PGlite) opens in one process only',
    );
    expect(run.output()).not.toContain('listening');
  });

  it('refuses a --workers that is not a number of processes', async () => {
    const run = await serve(['--workers', '0']);
    expect(await run.exit).toBe(1);
    expect(run.output()).toContain('--workers: "0" is not a number of processes (1 to 64)');
  });

  it.skipIf(!serverUrl)(
    'on PostgreSQL, two workers share the port and both answer; a killed worker is replaced; SIGTERM stops all',
    async () => {
      const database = await createThrowawayDatabase(serverUrl!, 'pushkit_workers');
      cleanups.push(database.drop);
      const run = await serve(['--workers', '2', '--database', database.url]);
      const port = Number((await run.waitFor(/2 workers listening on port (\d+)/))[1]);
      // one owner key, printed by the one worker that stored it. A worker prints it after it listens (with its
      // own "provider listening" line), so the count is read once both workers have printed theirs.
      await expect.poll(() => run.output().match(/push-kit provider listening on/g)?.length ?? 0, { timeout: START_DEADLINE_MS }).toBe(2);
      expect(run.output().match(/owner key for calligraphy/g)).toHaveLength(1);

      const answering = async (requests: number) => {
        const workers = new Set<string>();
        for (let i = 0; i < requests; i += 1) workers.add(await answeringWorker(port));
        return workers;
      };
      expect(await answering(12)).toEqual(new Set(['1', '2']));

      const [victim] = childPids(run.child.pid!);
      expect(childPids(run.child.pid!)).toHaveLength(2);
      process.kill(victim!, 'SIGKILL');
      await run.waitFor(new RegExp(`worker ${victim} exited \\(SIGKILL\\); starting another`));
      // the new worker (number 3) answers beside the one that lived
      await expect.poll(async () => [...(await answering(6))].sort(), { timeout: START_DEADLINE_MS, interval: 200 }).toContain('3');
      expect(childPids(run.child.pid!)).toHaveLength(2);
      expect(childPids(run.child.pid!)).not.toContain(victim);

      run.child.kill('SIGTERM');
      expect(await run.exit).toBe(0);
      expect(run.output()).toContain('push-kit serve: all workers stopped (SIGTERM)');
    },
    timeoutForProcesses(3),
  );
});
