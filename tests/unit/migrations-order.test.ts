import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../server/db/migrations.ts';

// A fresh database applies MIGRATIONS in array order and records each version; a version listed out of order is
// applied before one it may build on, and schema_migrations no longer reads as the list (server-postgres checks it).
describe('the schema migrations', () => {
  it('are listed once each, in version order', () => {
    const versions = MIGRATIONS.map((migration) => migration.version);
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
  });
});
