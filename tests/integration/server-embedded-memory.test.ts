// The embedded database's buffer cache lives in a WebAssembly heap that never shrinks: the provider opens it
// with a smaller cache than PostgreSQL's default, so that it stays smaller under load (bench/README.md, memory).
import { afterAll, describe, expect, it } from 'vitest';
import { EMBEDDED_SHARED_BUFFERS } from '../../server/db/database.ts';
import { openTempDatabase } from '../support/server.ts';

const opened = await openTempDatabase();
afterAll(() => opened.cleanup());

describe('the embedded database', () => {
  it('runs with the smaller buffer cache, and still answers and stores', async () => {
    const { rows } = await opened.db.query<{ shared_buffers: string }>('SHOW shared_buffers');
    expect(rows[0]!.shared_buffers).toBe(EMBEDDED_SHARED_BUFFERS);
    expect(EMBEDDED_SHARED_BUFFERS).toBe('32MB');
    const { rows: counted } = await opened.db.query<{ count: string }>('SELECT count(*) AS count FROM schema_migrations');
    expect(Number(counted[0]!.count)).toBeGreaterThan(0);
  });
});
