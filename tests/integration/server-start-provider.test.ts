// startProvider, the one assembly of the provider that serve, dev, the e2e stack and the benches share: it
// listens with its owner keys made once, closes everything it opened, and refuses to start with a catalogued
// code (never printing a database password).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServerError } from '../../server/errors.ts';
import { startProvider } from '../../server/start-provider.ts';
import { embeddedDatabaseDir } from '../../server/state-paths.ts';
import { seedMigratedDatabase } from '../support/migrated-database.ts';
import { tempDir, testSite } from '../support/server.ts';

const removals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const remove of removals) await remove();
});

/** A new state folder; `migrated`: with the migrated copy of an embedded database in it (migrated-database.ts). */
async function stateDir(migrated = false): Promise<string> {
  const dir = await tempDir('pushkit-start-');
  removals.push(dir.remove);
  if (migrated) await seedMigratedDatabase(embeddedDatabaseDir(dir.path));
  return dir.path;
}

describe('startProvider', () => {
  it('listens on a free port, makes the owner key once, and close() frees the port and the embedded database', async () => {
    const state = await stateDir();
    const first = await startProvider({ sites: [testSite()], stateDir: state });
    expect(first.url).toBe(`http://127.0.0.1:${first.port}`);
    expect(first.storage).toBe(`embedded database ${join(state, 'db')}`);
    expect(first.ownerKeys.get('letters')).toMatch(/^pk_[A-Za-z0-9_-]{32}$/);
    expect(first.resumed).toBe(0);
    expect(await (await fetch(`${first.url}/health`)).json()).toEqual({ status: 'success', database: 'embedded', sites: 1 });
    const owner = await fetch(`${first.url}/api/v1/sites/letters/subscribers/count`, {
      headers: { authorization: `Bearer ${first.ownerKeys.get('letters')}` },
    });
    expect(owner.status).toBe(200);
    await first.close();
    await expect(fetch(`${first.url}/health`)).rejects.toThrow();

    // the embedded database's lock was released: a second start on the same folder opens it, with the same key
    const second = await startProvider({ sites: [testSite()], stateDir: state });
    expect(second.ownerKeys.size).toBe(0);
    await second.close();
  });

  it('loads site configs from files, reporting the ones it cannot host', async () => {
    const state = await stateDir(true);
    const good = join(state, 'letters.json');
    const bad = join(state, 'broken.json');
    const { hash, companyName, origin, serverSyncUrl, vapidPublicKey } = testSite().config;
    await writeFile(good, JSON.stringify({ hash, companyName, origin, serverSyncUrl, vapidPublicKey }));
    await writeFile(bad, JSON.stringify({ hash: 'broken' }));
    const problems: string[] = [];
    const provider = await startProvider({ configs: [good, bad], stateDir: state, onConfigProblem: (line) => problems.push(line) });
    expect(provider.sites.map((site) => site.name)).toEqual(['letters']);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((line) => line.startsWith(`${bad}: `))).toBe(true);
    await provider.close();
  });

  it('refuses to start with a code: no site, a database it cannot open (password redacted), a port in use', async () => {
    const state = await stateDir(true);
    await expect(startProvider({ configs: [join(state, 'none-*.json')], stateDir: state })).rejects.toMatchObject({
      code: 'E_NO_SITES',
    });

    const refused = await startProvider({
      sites: [testSite()],
      stateDir: state,
      database: 'postgres://owner:s3cret-pw@127.0.0.1:1/pushkit',
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServerError);
    expect(refused).toMatchObject({ code: 'E_DATABASE_OPEN' });
    expect((refused as Error).message).toContain('postgres://owner:***@127.0.0.1:1/pushkit');
    expect((refused as Error).message).not.toContain('s3cret');

    const running = await startProvider({ sites: [testSite()], stateDir: state });
    const takenState = await stateDir(true);
    const taken = await startProvider({ sites: [testSite()], stateDir: takenState, port: running.port }).catch((error: unknown) => error);
    expect(taken).toMatchObject({ code: 'E_LISTEN' });
    await running.close();
    // the failed start stored no key nobody saw: the next start on the same database makes and shows one
    const again = await startProvider({ sites: [testSite()], stateDir: takenState });
    expect(again.ownerKeys.get(testSite().name)).toMatch(/^pk_[A-Za-z0-9_-]{32}$/);
    await again.close();
  });
});
