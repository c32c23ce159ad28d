// Two real `push-kit serve` processes on one PostgreSQL, each with its automation runner on its own timer: every
// new subscriber's welcome (delay 0, so due at once in real time) reaches the fake push service exactly once.
// Subscribers arrive through both processes; the test waits until no welcome is pending any more (nothing could
// be sent after that), then counts what the push service received.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { vapidKeyFile } from '../../server/state-paths.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import type { DeclarativePushMessage } from '../../contract/push-payload.ts';
import { createSubscriberKeys, decryptPushBody, startFakePushService, type FakePushService } from '../support/fake-push-service.ts';
import { startServe, stopGracefully, type ServeProcess } from '../support/server-faults.ts';
import { timeoutForProcesses } from '../support/process-ready.ts';
import { tempDir } from '../support/server.ts';
import { createThrowawayDatabase } from '../support/throwaway-postgres.ts';

const postgresUrl = process.env.PUSHKIT_TEST_DATABASE_URL;
const ORIGIN = 'https://serve-shop.com';
const HASH = 'serve-shop-01';
const SUBSCRIBERS = 20;
const subscriberKeys = createSubscriberKeys();

let service: FakePushService;
let db: Database | undefined;
const cleanups: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  service = await startFakePushService();
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await db?.close();
  await service.close();
});

describe.skipIf(!postgresUrl)('automations in two push-kit serve processes', () => {
  // the two serves start together; then the welcomes' minute
  it('send each welcome once', { timeout: timeoutForProcesses(1) + 60_000 }, async () => {
    const project = await tempDir('pushkit-automations-serve-');
    cleanups.push(project.remove);
    const database = await createThrowawayDatabase(postgresUrl!, 'pushkit_automations_serve');
    cleanups.push(database.drop);
    const keys = generateVapidKeyPair();
    await writeVapidKeyFile(vapidKeyFile(join(project.path, '.push-kit'), 'shop'), keys);
    await mkdir(join(project.path, 'site-configs'), { recursive: true });
    const siteFile = join(project.path, 'site-configs', 'shop.json');
    await writeFile(
      siteFile,
      JSON.stringify({
        hash: HASH,
        companyName: 'Serve shop',
        origin: ORIGIN,
        serverSyncUrl: 'https://push.serve-shop.com',
        vapidPublicKey: keys.publicKey,
        automations: { welcome: { enabled: true, delayMinutes: 0, title: 'Welcome to the shop' } },
      }),
    );
    const env = { DATABASE_URL: database.url, NODE_EXTRA_CA_CERTS: service.certPath, PUSHKIT_PUSH_SERVICES: service.origin };
    const processes: ServeProcess[] = await Promise.all([startServe(project.path, siteFile, env), startServe(project.path, siteFile, env)]);
    for (const serve of processes) cleanups.push(() => stopGracefully(serve));

    const paths: string[] = [];
    for (let i = 0; i < SUBSCRIBERS; i += 1) {
      const path = `/serve/${i}-${Date.now().toString(36)}`;
      paths.push(path);
      const reply = await fetch(`${processes[i % 2]!.url}/syncSubscriptionAction.php`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
        body: new URLSearchParams({
          hash: HASH,
          action: 'insert',
          subscription: JSON.stringify({
            endpoint: `${service.origin}${path}`,
            keys: { p256dh: subscriberKeys.p256dh, auth: subscriberKeys.auth },
          }),
        }),
      });
      expect(reply.status, await reply.clone().text()).toBe(200);
    }

    db = await openDatabase({ url: database.url, dataDir: '/nonexistent' });
    const welcomes = async () =>
      (
        await db!.query<{ status: string; count: string }>(
          `SELECT d.status, count(*) AS count FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id
            WHERE c.automation = 'welcome' GROUP BY d.status`,
        )
      ).rows.map((row) => [row.status, Number(row.count)]);
    await expect.poll(welcomes, { timeout: 60_000, interval: 250 }).toEqual([['delivered', SUBSCRIBERS]]);

    for (const path of paths) {
      const received = service.requests.filter((request) => request.path === path);
      expect(received, path).toHaveLength(1);
      expect(
        (JSON.parse(decryptPushBody(received[0]!.body, subscriberKeys).toString('utf8')) as DeclarativePushMessage).notification.title,
      ).toBe('Welcome to the shop');
    }
    // the runners log what they sent, once the pass that marked the deliveries has returned (after the rows above)
    await expect.poll(() => processes.map((serve) => serve.output()).join('\n')).toMatch(/automation welcome of shop: \d+ delivered/);
  });
});
