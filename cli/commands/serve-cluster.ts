// `push-kit serve --workers N`: N provider processes (node:cluster) sharing one port and one PostgreSQL
// database. Each worker is a whole provider (`serve` without --workers); the primary only starts them,
// starts another when one dies, and stops them all on SIGINT / SIGTERM. The embedded database opens in one
// process at a time, so several workers need PostgreSQL. Workers may run the same startup work at once; each
// part is safe to: migrations take an advisory lock, an owner key is stored by one worker (which prints it),
// and unfinished campaigns are shared through claims (server/campaigns/database-delivery-store.ts).
import cluster, { type Worker } from 'node:cluster';
import { cliError } from '../errors.ts';

/** The value of --workers: a whole number from 1 to 64. */
export function workerCount(value: string | undefined): number {
  if (value === undefined) return 1;
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || count > 64) {
    throw cliError('E_ARGUMENT', { option: 'workers', rule: `"${value}" is not a number of processes (1 to 64)` });
  }
  return count;
}

/** Several workers need a database every process can open. */
export function requireSharedDatabase(workers: number, database: string | undefined): void {
  if (workers > 1 && !database) {
    throw cliError('E_ARGUMENT', {
      option: 'workers',
      rule: `${workers} workers need PostgreSQL (--database postgres://... or DATABASE_URL): the embedded database (PGlite) opens in one process only`,
    });
  }
}

/** Runs `workers` provider processes until `stopped` resolves; the exit code of the command. */
export async function runServeCluster(workers: number, stopped: Promise<string>): Promise<number> {
  let stopping = false;
  let everListened = false;
  let announced = false;
  const listening = new Set<number>();
  const exited = new Map<number, Promise<void>>();

  const start = (): Worker => {
    const worker = cluster.fork();
    exited.set(worker.id, new Promise((resolve) => worker.once('exit', () => resolve())));
    return worker;
  };

  const failed = new Promise<number>((resolve) => {
    cluster.on('listening', (worker, address) => {
      everListened = true;
      listening.add(worker.id);
      if (!announced && listening.size >= workers) {
        announced = true;
        console.log(`push-kit serve: ${workers} workers listening on port ${address.port}`);
      }
    });
    cluster.on('exit', (worker, code, signal) => {
      exited.delete(worker.id);
      const wasListening = listening.delete(worker.id);
      if (stopping) return;
      // A worker that could not start (a bad config, the database away) would fail again: stop with its code.
      if (!wasListening && !everListened) {
        resolve(code || 1);
        return;
      }
      console.error(`push-kit serve: worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`);
      start();
    });
  });

  for (let i = 0; i < workers; i += 1) start();
  const outcome = await Promise.race([stopped.then((signal) => ({ signal })), failed.then((code) => ({ code }))]);
  stopping = true;
  for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  await Promise.all(exited.values());
  if ('code' in outcome) return outcome.code;
  console.log(`push-kit serve: all workers stopped (${outcome.signal})`);
  return 0;
}
