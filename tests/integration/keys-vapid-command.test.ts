// `push-kit keys vapid` as a site owner runs it in a project folder (issue 29): the ring listed with its
// subscribers, a rotation that rewrites the config's public key and keeps the old pair (0600) on the ring, a
// retire refused while a subscriber is on the key (naming the count) and allowed once none is.
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, seedProjectDatabase } from '../support/cli-process.ts';
import { timeoutForProcesses } from '../support/process-ready.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.ts';
import { vapidKeyId } from '../../server/keys/index.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';

const HASH = 'ring-cli-01';
const first = generateVapidKeyPair();
let project: string;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'pk-keys-vapid-'));
  await mkdir(join(project, 'site-configs'));
  await writeFile(
    join(project, 'site-configs/shop.json'),
    `${JSON.stringify(
      {
        hash: HASH,
        companyName: 'Shop',
        origin: 'https://shop.example',
        serverSyncUrl: 'https://push.shop.example',
        vapidPublicKey: first.publicKey,
      },
      null,
      2,
    )}\n`,
  );
  await writeVapidKeyFile(join(project, '.push-kit/keys/shop.json'), first);
  await seedProjectDatabase(project);
});
afterAll(() => rm(project, { recursive: true, force: true }));

/** A subscriber made with `keyId`, written to the project's embedded database between two commands. */
async function subscriberOn(keyId: string, status: 'subscribed' | 'unsubscribed'): Promise<void> {
  const db = await openDatabase({ dataDir: join(project, '.push-kit/db') });
  try {
    await db.query(
      `INSERT INTO subscribers (id, site_hash, status, endpoint, vapid_key_id) VALUES ('s-1', $1, $2, 'https://fcm.googleapis.com/fcm/send/s-1', $3)
       ON CONFLICT (id) DO UPDATE SET status = $2`,
      [HASH, status, keyId],
    );
  } finally {
    await db.close();
  }
}

// four runs of the command line and two opens of the embedded database between them, each a few seconds on a busy
// 2-core machine and 10 to 20 s at load 17 (where 90 s was not enough)
describe('push-kit keys vapid', { timeout: timeoutForProcesses(6) }, () => {
  it('rotates (0600 files, the config rewritten), lists the ring, refuses to retire a key in use, then retires it', async () => {
    const firstId = vapidKeyId(first.publicKey);
    const rotated = await runCli(project, ['keys', 'vapid', 'rotate', '--site', 'shop']);
    expect(rotated.status, rotated.stderr).toBe(0);
    const config = JSON.parse(await readFile(join(project, 'site-configs/shop.json'), 'utf8')) as { vapidPublicKey: string; hash: string };
    expect(config.hash).toBe(HASH);
    expect(config.vapidPublicKey).not.toBe(first.publicKey);
    const nextId = vapidKeyId(config.vapidPublicKey);
    expect(rotated.stdout).toContain(`shop: new current VAPID key ${nextId}; ${firstId} is now a legacy key`);
    expect(rotated.stdout).toContain('Rebuild and deploy push.js now (push-kit build site-configs/shop.json');
    const legacyFile = join(project, `.push-kit/keys/shop.legacy/${firstId}.json`);
    expect(JSON.parse(await readFile(legacyFile, 'utf8'))).toEqual(first);
    expect((await stat(legacyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(project, '.push-kit/keys/shop.json'))).mode & 0o777).toBe(0o600);

    await subscriberOn(firstId, 'subscribed');
    const ring = await runCli(project, ['keys', 'vapid', '--site', 'shop']);
    expect(ring.status, ring.stderr).toBe(0);
    expect(ring.stdout).toBe(
      'shop: VAPID key ring, 2 keys; on a legacy key: 1\n' +
        `  ${nextId}  current  0 subscribers  ${config.vapidPublicKey}\n` +
        `  ${firstId}  legacy    1 subscriber  ${first.publicKey}\n`,
    );

    const refused = await runCli(project, ['keys', 'vapid', 'retire', '--site', 'shop', firstId]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(
      `push-kit: KEY: 1 subscriber of site shop still uses key ${firstId}; retire it once none does (their browsers move to the current key on their next visit)\n`,
    );

    await subscriberOn(firstId, 'unsubscribed');
    const retired = await runCli(project, ['keys', 'vapid', 'retire', '--site', 'shop', firstId]);
    expect(retired.status, retired.stderr).toBe(0);
    expect(retired.stdout).toContain(`shop: legacy VAPID key ${firstId} retired`);
    await expect(stat(legacyFile)).rejects.toThrow();
  });
});
