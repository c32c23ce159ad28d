// A send's statements tallied by kind, for the benches (campaign-scale.ts, send-throughput.ts): claims, result
// writes and the rest, how many, rows per statement, and how long each waited for its answer.
import { readdirSync, readFileSync } from 'node:fs';
import type { Database } from '../server/db/database.ts';

/** A send's statements by kind: how many, and the milliseconds each waited for its answer (they overlap the pushes). */
export type Tally = Record<'claims' | 'result writes' | 'other', { count: number; rows: number; ms: number[] }>;

/** `db` with each statement of a send tallied by kind (a claim, a result write, anything else). */
export function tallied(db: Database): { db: Database; tally: Tally } {
  const tally: Tally = {
    claims: { count: 0, rows: 0, ms: [] },
    'result writes': { count: 0, rows: 0, ms: [] },
    other: { count: 0, rows: 0, ms: [] },
  };
  const wrapped = Object.create(db) as Database;
  wrapped.query = (async (sql: string, params?: unknown[], options?: unknown) => {
    // a claim (database-delivery-store.ts claimAtOnce), a result batch, anything else (renewals of the claims, progress)
    const kind = sql.includes('WITH picked AS') ? 'claims' : sql.includes('WITH marked AS') ? 'result writes' : 'other';
    const start = performance.now();
    const result = await (db.query as (...args: unknown[]) => Promise<{ rows: unknown[] }>)(sql, params, options);
    tally[kind].count += 1;
    tally[kind].ms.push(performance.now() - start);
    tally[kind].rows += kind === 'result writes' ? (params![0] as unknown[]).length : result.rows.length;
    return result;
  }) as Database['query'];
  return { db: wrapped, tally };
}

/** One line per kind of statement that ran: count, rows each, the time their answers took in all, median and p99. */
export function tallyLines(tally: Tally): string[] {
  return Object.entries(tally)
    .filter(([, { count }]) => count > 0)
    .map(([kind, { count, rows, ms }]) => {
      const sorted = [...ms].sort((a, b) => a - b);
      return (
        `${kind}: ${count.toLocaleString('en')} statements, ${(rows / count).toFixed(0)} rows each, answered in ${(ms.reduce((a, b) => a + b, 0) / 1000).toFixed(2)} s ` +
        `in all (median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, p99 ${sorted[Math.floor(sorted.length * 0.99)]!.toFixed(1)} ms)`
      );
    });
}

/**
 * CPU time of a send by process, sampled every second from /proc (Linux, PostgreSQL on this machine): this process
 * with its threads (the sender, its encryption threads, the owner reads), its child processes (the push service) and
 * the backends of `db`'s database (autovacuum's workers on it included; the server's shared WAL writer and
 * checkpointer not). A backend that ends between samples loses at most its last second. Elsewhere: zeros.
 */
export function cpuSampler(db: Database): { stop(): Promise<Record<'provider' | 'push service' | 'PostgreSQL', number>> } {
  const ticksOf = (pid: number): number | undefined => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10; // ms, at 100 ticks a second
    } catch {
      return undefined;
    }
  };
  const children = (): number[] => {
    try {
      return readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .filter((name) => readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] === String(process.pid))
        .map(Number);
    } catch {
      return [];
    }
  };
  /** ms of CPU per pid when first seen and when last seen */
  const seen = new Map<number, { first: number; last: number; kind: 'push service' | 'PostgreSQL' }>();
  const sample = async (start: boolean): Promise<void> => {
    const { rows } = await db
      .query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')
      .catch(() => ({ rows: [] as { pid: number }[] }));
    const pids: Array<[number, 'push service' | 'PostgreSQL']> = [
      ...children().map((pid): [number, 'push service'] => [pid, 'push service']),
      ...rows.map(({ pid }): [number, 'PostgreSQL'] => [Number(pid), 'PostgreSQL']),
    ];
    for (const [pid, kind] of pids) {
      const ms = ticksOf(pid);
      if (ms === undefined) continue;
      const known = seen.get(pid);
      if (known) known.last = ms;
      else seen.set(pid, { first: start ? ms : 0, last: ms, kind });
    }
  };
  const cpuStart = process.cpuUsage();
  let sampling = sample(true);
  const timer = setInterval(() => {
    sampling = sampling.then(() => sample(false));
  }, 1000);
  return {
    async stop() {
      clearInterval(timer);
      await sampling;
      await sample(false);
      const used = process.cpuUsage(cpuStart);
      const split = { provider: (used.user + used.system) / 1000, 'push service': 0, PostgreSQL: 0 };
      for (const { first, last, kind } of seen.values()) split[kind] += last - first;
      return split;
    },
  };
}

/** The CPU split as one line: ms in all and µs per message of each part. */
export function cpuLine(split: Record<string, number>, messages: number): string {
  return (
    'CPU: ' +
    Object.entries(split)
      .map(([part, ms]) => `${part} ${(ms / 1000).toFixed(1)} s (${((ms * 1000) / messages).toFixed(0)} µs a message)`)
      .join(', ')
  );
}
