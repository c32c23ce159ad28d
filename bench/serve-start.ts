// `push-kit serve`'s start: from the process's spawn to its ready line ("Press Ctrl+C to stop."), on a fresh
// project (its embedded database made and migrated) and a second time on the same project, and on PostgreSQL with
// --database. Each start is measured in wall time and in CPU time at the ready line (the main thread and the other
// threads, from /proc: what a loaded machine stretches), beside two peers in the same run: a bare Node process that
// listens on a port (Node's own floor) and the same `serve` with V8's default WebAssembly tiering budget (what a
// start cost before server/db/database.ts WASM_TIERING_BUDGET). Runs the bin as the tests do: the compiled package
// with PUSHKIT_COMPILED_CLI=1 (after `npm run build`), else the sources through tsx.
//   npx tsx bench/serve-start.ts [--rounds 3] [--database postgres://...]
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, wholeNumber } from './bench-args.ts';

const USAGE = 'npx tsx bench/serve-start.ts [--rounds 3] [--database postgres://...]';
const values = benchArgs(USAGE, { rounds: { type: 'string', default: '3' }, database: { type: 'string' } });
const rounds = wholeNumber('rounds', values.rounds, USAGE);
const BIN = fileURLToPath(new URL('../bin/push-kit.js', import.meta.url));
/** V8's own budget (Node 20's V8): `serve` keeps a budget given on Node's command line. */
const V8_DEFAULT_TIERING = '--wasm-tiering-budget=1800000';
const TICK_MS = 10; // /proc's clock ticks (USER_HZ 100)

interface Start {
  wallMs: number;
  mainCpuMs: number;
  otherCpuMs: number;
}

/** CPU of each thread of `pid` so far: the main thread's and the others' together. */
async function threadCpu(pid: number): Promise<{ main: number; other: number }> {
  let main = 0;
  let other = 0;
  for (const task of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${task}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    if (task === String(pid)) main += ms;
    else other += ms;
  }
  return { main, other };
}

/** Spawns `args` in `cwd`, waits for `ready` on its output, reads its CPU, stops it (SIGTERM) and waits for its exit. */
function measure(args: string[], cwd: string, ready: string): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, DATABASE_URL: '', NO_COLOR: '1' } });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes(ready)) return;
      child.stdout.off('data', onData);
      const wallMs = performance.now() - started;
      void threadCpu(child.pid!).then(({ main, other }) => {
        child.once('exit', () => resolve({ wallMs, mainCpuMs: main, otherCpuMs: other }));
        child.kill('SIGTERM');
      }, reject);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      if (!output.includes(ready)) reject(new Error(`exited with ${code} before it was ready:\n${output}`));
    });
  });
}

const LISTEN = `require('node:http').createServer().listen(0, '127.0.0.1', () => console.log('listening'))`;
const kinds = [
  'bare Node listening',
  'serve, fresh project',
  'serve, second start',
  'serve, fresh, V8 default tiering',
  'serve, second, V8 default tiering',
];
// (a new database is migrated by the run's first start on it)
if (values.database) kinds.push('serve on PostgreSQL, first of the run', 'serve on PostgreSQL, later starts');
const results = new Map<string, Start[]>(kinds.map((kind) => [kind, []]));
const record = (kind: string, start: Start) => results.get(kind)!.push(start);

const work = await mkdtemp(join(tmpdir(), 'push-kit-bench-start-'));
try {
  const template = join(work, 'template');
  const init = spawn(process.execPath, [BIN, 'init', '--yes', '--dir', template], { stdio: 'ignore' });
  await new Promise((resolve) => init.once('exit', resolve));
  const serve = (database?: string) => [BIN, 'serve', '--port', '0', ...(database ? ['--database', database] : [])];
  console.log(`load average ${loadavg()[0]!.toFixed(1)} at the start; ${rounds} rounds, each kind in turn`);
  for (let round = 1; round <= rounds; round += 1) {
    record(kinds[0]!, await measure(['-e', LISTEN], work, 'listening'));
    for (const [flags, first, second] of [
      [[], kinds[1]!, kinds[2]!],
      [[V8_DEFAULT_TIERING], kinds[3]!, kinds[4]!],
    ] as const) {
      const project = join(work, `project-${round}-${flags.length}`);
      await cp(template, project, { recursive: true });
      record(first, await measure([...flags, ...serve()], project, 'Press Ctrl+C'));
      record(second, await measure([...flags, ...serve()], project, 'Press Ctrl+C'));
      await rm(project, { recursive: true, force: true });
    }
    if (values.database) {
      // the same database each round: the run's first start migrates a new one, the later ones only check
      record(round === 1 ? kinds[5]! : kinds[6]!, await measure(serve(values.database), template, 'Press Ctrl+C'));
    }
  }
} finally {
  await rm(work, { recursive: true, force: true });
}

const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)] ?? NaN;
const floor = median(results.get(kinds[0]!)!.map((start) => start.wallMs));
console.log(`load average ${loadavg()[0]!.toFixed(1)} at the end (wall times stretch with the load; CPU times much less)`);
console.log('kind'.padEnd(38), 'wall ms', ' x bare', ' CPU ms (main + other threads)');
for (const [kind, starts] of results) {
  if (starts.length === 0) continue;
  const wall = median(starts.map((start) => start.wallMs));
  const main = median(starts.map((start) => start.mainCpuMs));
  const other = median(starts.map((start) => start.otherCpuMs));
  console.log(
    kind.padEnd(38),
    String(Math.round(wall)).padStart(7),
    (wall / floor).toFixed(1).padStart(7),
    `${main + other} (${main} + ${other})`.padStart(22),
  );
}
