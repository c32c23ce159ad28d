// Storage across restarts and the hosted sites list.
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.ts';
import { MIGRATIONS } from '../../server/db/migrations.ts';
import { analyzeGrownTables, openDatabase } from '../../server/db/database.ts';
import { CACHE_DIR_ENV } from '../../server/db/embedded-initdb.ts';
import { ensureOwnerKey, isOwnerKey, ownerKeyHashFromInit } from '../../server/http/owner-keys.ts';
import { loadSites } from '../../server/sites.ts';
import { seedMigratedDatabase } from '../support/migrated-database.ts';
import { insertSubscriber, openTempDatabase, postSync, SITE_HASH, tempDir, testSite } from '../support/server.ts';

const removals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const remove of removals) await remove();
});

describe('embedded database', () => {
  it('keeps subscribers, keys and migrations across a close and reopen, without migrating twice', async () => {
    const dir = await tempDir('pushkit-reopen-');
    removals.push(dir.remove);
    const dataDir = join(dir.path, 'db');
    const site = testSite();

    const first = await openDatabase({ dataDir });
    const app = await createApp({ sites: [site], db: first });
    const { id, subscription } = await insertSubscriber(app, { userLanguage: 'cy' });
    const key = (await ensureOwnerKey(first, site))!;
    // a delivery claimed by a sender whose process is gone: released at the next open, sent at once (not after the lease)
    const campaign = await first.query<{ id: string }>(
      `INSERT INTO campaigns (site_hash, title, body, ttl, urgency, status) VALUES ($1, 'T', 'B', 60, 'normal', 'sending') RETURNING id`,
      [site.hash],
    );
    await first.query(`INSERT INTO deliveries (campaign_id, subscriber_id, claimed_at) VALUES ($1, $2, now())`, [campaign.rows[0]!.id, id]);
    await app.close();
    await first.close();

    const second = await openDatabase({ dataDir });
    expect((await second.query(`SELECT status, claimed_at FROM deliveries`)).rows).toEqual([{ status: 'pending', claimed_at: null }]);
    const reopened = await createApp({ sites: [site], db: second });
    const { rows } = await second.query<{ id: string; language: string }>('SELECT id, language FROM subscribers');
    expect(rows).toEqual([{ id, language: 'cy' }]);
    expect((await second.query('SELECT version FROM schema_migrations')).rows).toHaveLength(MIGRATIONS.length);
    expect(await isOwnerKey(second, site, key)).toBe(true);
    expect(await ensureOwnerKey(second, site)).toBeNull();
    const again = await postSync(reopened, { hash: SITE_HASH, action: 'insert', subscription: subscription.json });
    // the same push subscription subscribing again proves the browser: a new secret replaces the one it lost
    expect(again.json()).toEqual({ status: 'success', subscriberId: id, subscriberSecret: expect.any(String) });
    await reopened.close();
    await second.close();
  });

  it('is created without a usable cache folder too (no home, a read-only one): initdb then makes it alone', async () => {
    const dir = await tempDir('pushkit-nocache-');
    removals.push(dir.remove);
    await writeFile(join(dir.path, 'not-a-folder'), '');
    const saved = process.env[CACHE_DIR_ENV];
    process.env[CACHE_DIR_ENV] = join(dir.path, 'not-a-folder', 'cache');
    try {
      const db = await openDatabase({ dataDir: join(dir.path, 'db') });
      expect((await db.query('SELECT count(*)::int AS count FROM schema_migrations')).rows).toEqual([{ count: MIGRATIONS.length }]);
      await db.close();
    } finally {
      if (saved === undefined) delete process.env[CACHE_DIR_ENV];
      else process.env[CACHE_DIR_ENV] = saved;
    }
  });

  it("is one process's: a second open is refused while a lock left by a killed process is taken over", async () => {
    const dir = await tempDir('pushkit-lock-');
    removals.push(dir.remove);
    const dataDir = join(dir.path, 'db');
    // (made and migrated as the tests above prove: the copy)
    await seedMigratedDatabase(dataDir);
    const first = await openDatabase({ dataDir });
    await expect(openDatabase({ dataDir })).rejects.toThrow(
      `the embedded database ${dataDir} is in use by process ${process.pid}; stop it, or run several processes on one PostgreSQL database`,
    );
    await first.close();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    await writeFile(`${dataDir}.lock`, dead);
    const second = await openDatabase({ dataDir });
    expect((await second.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await second.close();
  });

  it("keeps the planner's statistics as the site grows: a sync insert finds its subscriber by index, not by reading the site's rows", async () => {
    const { db, cleanup } = await openTempDatabase();
    removals.push(cleanup);
    const app = await createApp({ sites: [testSite()], db });
    const rowsRead = async () => {
      await db.query('SELECT pg_stat_force_next_flush()');
      const { rows } = await db.query<{ read: string }>(
        `SELECT (SELECT coalesce(sum(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE relname = 'subscribers')
           + (SELECT coalesce(seq_tup_read, 0) FROM pg_stat_user_tables WHERE relname = 'subscribers') AS read`,
      );
      return Number(rows[0]!.read);
    };
    const readByOneInsert = async () => {
      const before = await rowsRead();
      await insertSubscriber(app);
      return (await rowsRead()) - before;
    };
    // the sync's statements are planned while the site is small, then it grows to 2,000 subscribers
    for (let n = 0; n < 8; n += 1) await insertSubscriber(app);
    await db.query(
      `INSERT INTO subscribers (id, site_hash, status, endpoint, subscription_id)
       SELECT 'id-' || g, $1, 'subscribed', 'https://push.example/' || g, 'sub-' || g FROM generate_series(1, 2000) g`,
      [SITE_HASH],
    );
    // without statistics (the embedded database has no autovacuum) the look-ups walked every row of the site
    expect(await readByOneInsert()).toBeGreaterThan(2000);
    await analyzeGrownTables(db);
    expect(await readByOneInsert()).toBeLessThan(10);
    await app.close();
  });

  it('rolls a failed transaction back completely', async () => {
    const dir = await tempDir('pushkit-rollback-');
    removals.push(dir.remove);
    await seedMigratedDatabase(join(dir.path, 'db'));
    const db = await openDatabase({ dataDir: join(dir.path, 'db') });
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`INSERT INTO segments (site_hash, sid, name) VALUES ('h', 's', 'n')`);
        throw new Error('half way');
      }),
    ).rejects.toThrow('half way');
    expect((await db.query('SELECT 1 FROM segments')).rows).toHaveLength(0);
    await db.close();
  });
});

describe('loadSites', () => {
  it('loads the configs a glob matches, names them by file, and reports bad or clashing ones (a shared child window origin too)', async () => {
    const dir = await tempDir('pushkit-sites-');
    removals.push(dir.remove);
    const configs = join(dir.path, 'site-configs');
    await mkdir(configs);
    const valid = testSite();
    const base = { companyName: 'Letters', serverSyncUrl: 'https://push.letters.example', vapidPublicKey: valid.config.vapidPublicKey };
    await writeFile(join(configs, 'letters.json'), JSON.stringify({ ...base, hash: 'letters-hash-01', origin: 'https://letters.example' }));
    await writeFile(join(configs, 'zcopy.json'), JSON.stringify({ ...base, hash: 'letters-hash-01', origin: 'https://copy.example' }));
    await writeFile(join(configs, 'broken.json'), JSON.stringify({ ...base, hash: 'short', origin: 'https://b.example' }));
    const childWindowOrigin = 'https://http-sites.push.example';
    await writeFile(
      join(configs, 'one.json'),
      JSON.stringify({ ...base, hash: 'one-hash-01', origin: 'http://one.example', childWindowOrigin }),
    );
    await writeFile(
      join(configs, 'two.json'),
      JSON.stringify({ ...base, hash: 'two-hash-01', origin: 'http://two.example', childWindowOrigin }),
    );
    await writeFile(join(configs, 'notes.txt'), 'not a config');

    const { sites, problems } = await loadSites([join(configs, '*.json')], join(dir.path, 'dist'));
    expect(sites.map((site) => [site.name, site.hash, site.builtDir])).toEqual([
      ['letters', 'letters-hash-01', join(dir.path, 'dist', 'letters')],
      ['one', 'one-hash-01', join(dir.path, 'dist', 'one')],
    ]);
    expect(problems).toEqual([
      `${join(configs, 'broken.json')}: hash: must be 8 to 64 letters, digits, "_" or "-"`,
      `${join(configs, 'two.json')}: childWindowOrigin: "${childWindowOrigin}" is already the child window origin of ${join(configs, 'one.json')}`,
      `${join(configs, 'zcopy.json')}: hash: "letters-hash-01" is also the hash of ${join(configs, 'letters.json')}: the provider knows a site by its hash, so serve would host only one of them`,
    ]);
  });
});

describe('owner key created by push-kit init', () => {
  it('is the key the provider accepts, and no other key is made', async () => {
    const dir = await tempDir('pushkit-init-key-');
    await seedMigratedDatabase(join(dir.path, 'db'));
    const db = await openDatabase({ dataDir: join(dir.path, 'db') });
    try {
      const { createHash } = await import('node:crypto');
      await mkdir(join(dir.path, 'owner-keys'), { recursive: true });
      const sha256 = createHash('sha256').update('pk_from_init').digest('hex');
      await writeFile(join(dir.path, 'owner-keys', 'letters.json'), JSON.stringify({ sha256 }));
      const site = testSite();
      expect(await ensureOwnerKey(db, site, await ownerKeyHashFromInit(dir.path, 'letters'))).toBeNull();
      expect(await isOwnerKey(db, site, 'pk_from_init')).toBe(true);
      expect(await isOwnerKey(db, site, 'pk_something_else')).toBe(false);
      expect(await ownerKeyHashFromInit(dir.path, 'no-such-site')).toBeUndefined();
    } finally {
      await db.close();
      await dir.remove();
    }
  });
});
