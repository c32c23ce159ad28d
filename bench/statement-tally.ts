// A send's statements tallied by kind, for the benches (campaign-scale.ts, send-throughput.ts): claims, result
// writes and the rest, how many, rows per statement, and how long each waited for its answer.
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
