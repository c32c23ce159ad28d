// The import on a PostgreSQL server (PUSHKIT_TEST_DATABASE_URL), where two batches are written at once: a file
// that repeats endpoints across batches, in shuffled order, is stored once per endpoint with no deadlock, and an
// import stopped by a failing database leaves whole batches that a second run completes.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/database.ts';
import { importSubscribers } from '../../server/import/index.ts';
import { PushServiceAllowlist } from '../../server/push/push-services.ts';
import { createSubscriberKeys } from '../support/fake-push-service.ts';
import { testSite } from '../support/server.ts';
import { openThrowawayPostgres } from '../support/throwaway-postgres.ts';

const url = process.env.PUSHKIT_TEST_DATABASE_URL;
const site = testSite();
const keys = createSubscriberKeys();
const endpoint = (n: number) => `https://fcm.googleapis.com/fcm/send/import-pg-${n}`;

/** 600 rows naming 300 endpoints twice each, shuffled so that every batch of 50 overlaps others. */
function repeatingFile(): string {
  const rows = Array.from({ length: 600 }, (_, i) => `${endpoint(i % 300)},${keys.p256dh},${keys.auth},${i % 7 === 0 ? 'pg-seg' : ''}`);
  for (let i = rows.length - 1; i > 0; i -= 1) {
    const j = (i * 7919) % (i + 1);
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  return ['endpoint,p256dh,auth,segments', ...rows].join('\n');
}

describe.skipIf(!url)('import on PostgreSQL', () => {
  it('batches written at once, repeating endpoints: each stored once, no deadlock; a second run adds nothing', async () => {
    const { db, cleanup } = await openThrowawayPostgres(url!, 'pushkit_import');
    try {
      const options = { site, pushServices: PushServiceAllowlist.known, batchRows: 50 };
      const report = await importSubscribers(db, Readable.from([repeatingFile()]), options);
      expect(report).toMatchObject({ rows: 600, imported: 300, existing: 300, invalid: 0, segmentsCreated: ['pg-seg'] });
      const { rows } = await db.query<{ n: string; distinct_endpoints: string }>(
        'SELECT count(*) AS n, count(DISTINCT endpoint) AS distinct_endpoints FROM subscribers WHERE site_hash = $1',
        [site.hash],
      );
      expect(rows[0]).toEqual({ n: '300', distinct_endpoints: '300' });
      const again = await importSubscribers(db, Readable.from([repeatingFile()]), options);
      expect(again).toMatchObject({ imported: 0, existing: 600 });
    } finally {
      await cleanup();
    }
  });

  it('a database failing mid-way leaves whole batches only; running the file again imports the rest', async () => {
    const { db, cleanup } = await openThrowawayPostgres(url!, 'pushkit_import');
    try {
      // the fourth transaction fails after its insert, as a connection lost before the commit
      let transactions = 0;
      const failing: Database = {
        ...db,
        kind: db.kind,
        query: (sql, params) => db.query(sql, params),
        close: () => db.close(),
        transaction: (fn) =>
          db.transaction(async (tx) => {
            const result = await fn(tx);
            transactions += 1;
            if (transactions === 4) throw new Error('connection lost');
            return result;
          }),
      };
      const file = [
        'endpoint,p256dh,auth,tags',
        ...Array.from({ length: 500 }, (_, i) => `${endpoint(1000 + i)},${keys.p256dh},${keys.auth},n=${i}`),
      ].join('\n');
      const options = { site, pushServices: PushServiceAllowlist.known, batchRows: 50 };
      await expect(importSubscribers(failing, Readable.from([file]), options)).rejects.toThrow('connection lost');
      const count = async (table: string) => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
      const stored = await count('subscribers');
      expect(stored % 50).toBe(0);
      expect(stored).toBeLessThan(500);
      expect(await count('subscriber_tags')).toBe(stored);
      const rest = await importSubscribers(db, Readable.from([file]), options);
      expect(rest).toMatchObject({ imported: 500 - stored, existing: stored, invalid: 0 });
      expect(await count('subscriber_tags')).toBe(500);
    } finally {
      await cleanup();
    }
  });
});
