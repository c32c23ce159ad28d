// Figure 5 of the benchmarks, issue 34's method: three rows measured in one run, rounds alternating, the
// median of 5. N subscribers (5,000) are inserted through the sync endpoint; every row sends one message to
// each of them at concurrency 50 to the same loopback HTTPS push service (a child process answering 201,
// decrypting one message in SAMPLE and checking its VAPID signature; a round counts only when every subscriber
// got exactly one message and every sampled one was readable and signed):
//   - the floor: bodies encrypted and signed before the clock starts, posted as fast as this machine can over
//     one keep-alive pool (undici, push-kit's client; and node:https, web-push's);
//   - web-push's sendNotification over one keep-alive https.Agent;
//   - a push-kit campaign end to end: the owner API's POST /campaigns (one delivery row per subscriber) until
//     the campaign is done (completedAt), with claims, encryption on the pool's threads, VAPID, the HTTPS
//     requests and the results written.
// Then where push-kit's time goes, each part alone: encrypting N messages on the pool, the database work of a
// campaign (rows, claims, results) with a sender that answers at once, and posting (the floor); and of the database
// part, POST /campaigns's share and the send's statements (claims and result writes: how many, how long each took).
//   npx tsx bench/send-throughput.ts [--subscriptions 5000] [--concurrency 50] [--rounds 5]
//   PUSHKIT_BENCH_DATABASE_URL=postgres://... npx tsx bench/send-throughput.ts   # rows on PostgreSQL
//   node --cpu-prof --cpu-prof-dir=prof --import tsx bench/send-throughput.ts      # where the main thread's time goes
import { benchArgs, wholeNumber } from './bench-args.ts';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { loadavg } from 'node:os';
import { Agent as UndiciAgent, request as undiciRequest } from 'undici';
import webPush from 'web-push';
import { createApp } from '../server/http/app.ts';
import { runCampaign } from '../server/campaigns/campaign-runner.ts';
import { sendCampaign, vapidSubjectOf } from '../server/campaigns/campaign-sender.ts';
import { closePushConnections } from '../server/push/send.ts';
import { encryptPayload } from '../server/push/encrypt.ts';
import { sharedEncryptionPool } from '../server/push/encryption-pool.ts';
import { vapidAuthorizerFor } from '../server/push/vapid.ts';
import { PushServiceAllowlist } from '../server/push/push-services.ts';
import { DatabaseDeliveryStore } from '../server/campaigns/database-delivery-store.ts';
import type { Database } from '../server/db/database.ts';
import { ensureOwnerKey } from '../server/http/owner-keys.ts';
import { generateVapidKeyPair } from '../server/push/vapid-keys.ts';
import { openTempDatabase, SITE_HASH, testSite } from '../tests/support/server.ts';
import { SAMPLE, startCountingPushService } from './counting-push-service.ts';
import { openThrowawayPostgres } from '../tests/support/throwaway-postgres.ts';
import { tallied, tallyLines, type Tally } from './statement-tally.ts';

const USAGE = 'npx tsx bench/send-throughput.ts [--subscriptions 5000] [--concurrency 50] [--rounds 5]';
const values = benchArgs(USAGE, {
  subscriptions: { type: 'string', default: '5000' },
  concurrency: { type: 'string', default: '50' },
  rounds: { type: 'string', default: '5' },
});

async function openBenchDatabase(): Promise<{ db: Database; label: string; cleanup: () => Promise<void> }> {
  const url = process.env.PUSHKIT_BENCH_DATABASE_URL;
  if (url) return { ...(await openThrowawayPostgres(url, 'pushkit_bench')), label: 'PostgreSQL' };
  return { ...(await openTempDatabase()), label: 'PGlite (embedded)' };
}

/** Runs `work` on each of `count` items, `concurrency` at a time. */
async function pool(count: number, concurrency: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const subscriptions = wholeNumber('subscriptions', values.subscriptions, USAGE);
  const concurrency = wholeNumber('concurrency', values.concurrency, USAGE);
  const rounds = wholeNumber('rounds', values.rounds, USAGE);
  const vapid = generateVapidKeyPair();
  const pushService = await startCountingPushService(subscriptions, vapid.publicKey);
  const { origin, ca, keys } = pushService;
  const pushServices = PushServiceAllowlist.fromSetting([origin]);
  const { db, label, cleanup } = await openBenchDatabase();
  const site = testSite();
  const app = await createApp({ sites: [site], db, rateLimit: false, pushServices });
  const ownerKey = (await ensureOwnerKey(db, site))!;
  const subject = vapidSubjectOf(site);
  const endpoints = keys.map((_, index) => `${origin}/s${index}`);

  // the subscribers, as browsers make them: an insert through the sync endpoint each
  const insertStart = performance.now();
  await pool(subscriptions, concurrency, async (index) => {
    const reply = await app.inject({
      method: 'POST',
      url: '/syncSubscriptionAction.php',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        hash: SITE_HASH,
        action: 'insert',
        subscription: JSON.stringify({ endpoint: endpoints[index], expirationTime: null, keys: keys[index] }),
        subscriptionId: `bench-${index}`,
        browserType: 'chrome',
        userLanguage: 'en-US',
      }).toString(),
    });
    if (reply.statusCode !== 200 || (reply.json() as { status: string }).status !== 'success') throw new Error(`insert: ${reply.body}`);
  });
  console.log(
    `${subscriptions} subscribers inserted through the sync endpoint in ${((performance.now() - insertStart) / 1000).toFixed(1)} s`,
  );

  const payload = JSON.stringify({
    web_push: 8030,
    notification: { title: 'Sale', body: 'Fifty percent off every brush and ink', navigate: 'https://letters.example/sale' },
  });
  const authorizer = vapidAuthorizerFor(vapid, subject);
  const headers = () => ({
    authorization: authorizer.authorizationFor(endpoints[0]!),
    'content-encoding': 'aes128gcm',
    'content-type': 'application/octet-stream',
    ttl: '3600',
  });

  /** The floor's bodies: encrypted for each subscriber before the clock starts (fresh for each round). */
  const encryptAll = () => keys.map((subscriberKeys) => encryptPayload(payload, subscriberKeys));

  const undiciAgent = new UndiciAgent({ connections: concurrency, keepAliveTimeout: 30_000, connect: { ca } });
  const httpsAgent = new HttpsAgent({ ca, keepAlive: true, maxSockets: concurrency });
  const webPushAgent = new HttpsAgent({ ca, keepAlive: true, maxSockets: concurrency });

  const createCampaign = async (title: string): Promise<string> => {
    const reply = await app.inject({
      method: 'POST',
      url: `/api/v1/sites/${site.name}/campaigns`,
      headers: { authorization: `Bearer ${ownerKey}` },
      payload: { title, body: 'Fifty percent off every brush and ink', url: 'https://letters.example/sale', ttl: 3600 },
    });
    if (reply.statusCode !== 201) throw new Error(`POST /campaigns: ${reply.statusCode} ${reply.body}`);
    return String((reply.json() as { campaignId: string | number }).campaignId);
  };

  let number = 0;
  /** The statements of the last push-kit campaign round's send (claims and result writes: how many, how long). */
  let campaignStatements: Tally | undefined;
  /** Each row: work done before its clock starts (the floor's encryption), then what is timed. */
  const rows: Record<string, { prepare?: () => unknown; run: (prepared: unknown) => Promise<void> }> = {
    'floor, undici (push-kit client)': {
      prepare: encryptAll,
      run: async (prepared) => {
        const bodies = prepared as Buffer[];
        await pool(subscriptions, concurrency, async (index) => {
          const response = await undiciRequest(endpoints[index]!, {
            method: 'POST',
            headers: headers(),
            body: bodies[index],
            dispatcher: undiciAgent,
          });
          await response.body.dump();
          if (response.statusCode !== 201) throw new Error(`floor: ${response.statusCode}`);
        });
      },
    },
    'floor, node:https (web-push client)': {
      prepare: encryptAll,
      run: async (prepared) => {
        const bodies = prepared as Buffer[];
        await pool(
          subscriptions,
          concurrency,
          (index) =>
            new Promise<void>((resolve, reject) => {
              const request = httpsRequest(endpoints[index]!, { method: 'POST', headers: headers(), agent: httpsAgent }, (response) => {
                response.resume();
                response.on('end', () => (response.statusCode === 201 ? resolve() : reject(new Error(`floor: ${response.statusCode}`))));
              });
              request.on('error', reject);
              request.end(bodies[index]);
            }),
        );
      },
    },
    "web-push's sendNotification": {
      run: async () => {
        await pool(subscriptions, concurrency, async (index) => {
          await webPush.sendNotification({ endpoint: endpoints[index]!, keys: keys[index]! }, payload, {
            vapidDetails: { subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
            TTL: 3600,
            agent: webPushAgent,
          });
        });
      },
    },
    'push-kit campaign, owner API to completedAt': {
      run: async () => {
        number += 1;
        const campaignId = await createCampaign(`Sale ${number}`);
        const send = tallied(db);
        campaignStatements = send.tally;
        const counts = await sendCampaign(send.db, site, campaignId, vapid, { ca, pushServices, concurrency });
        if (counts.delivered !== subscriptions) throw new Error(`push-kit delivered ${counts.delivered} of ${subscriptions}`);
      },
    },
  };

  const rates: Record<string, number[]> = {};
  const round = async (name: string): Promise<number> => {
    const row = rows[name]!;
    const prepared = row.prepare?.();
    const start = performance.now();
    await row.run(prepared);
    const seconds = (performance.now() - start) / 1000;
    await pushService.checkRound(name);
    return subscriptions / seconds;
  };
  const names = Object.keys(rows);
  for (const name of names) await round(name); // warm-up: connections, JIT, threads
  for (let r = 0; r < rounds; r += 1) {
    // alternating: each round starts with the next row
    for (let i = 0; i < names.length; i += 1) {
      const name = names[(i + r) % names.length]!;
      (rates[name] ??= []).push(await round(name));
    }
  }

  // Where push-kit's time goes, each part alone, median of 3.
  const encryption: number[] = [];
  const database: number[] = [];
  /** Of the database part: POST /campaigns (the rows), and the statements of the send (the last round's). */
  const creation: number[] = [];
  let statements: Tally | undefined;
  const encryptor = sharedEncryptionPool();
  for (let r = 0; r < 3; r += 1) {
    let start = performance.now();
    await pool(subscriptions, concurrency * 4, async (index) => {
      await encryptor.encrypt(payload, keys[index]!);
    });
    encryption.push(performance.now() - start);
    start = performance.now();
    const campaignId = await createCampaign(`Database only ${r}`);
    creation.push(performance.now() - start);
    const send = tallied(db);
    statements = send.tally;
    await runCampaign(new DatabaseDeliveryStore(send.db, site.config), campaignId, {
      vapid,
      subject,
      ttl: 3600,
      concurrency,
      send: async () => ({ outcome: 'delivered', statusCode: 201 }),
    });
    database.push(performance.now() - start);
  }

  console.log(
    `\none message to each of ${subscriptions} subscribers (${label}), concurrency ${concurrency}, median of ${rounds} alternating rounds; the push service decrypts and VAPID-checks 1 in ${SAMPLE}; load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  );
  const floor = Math.max(median(rates[names[0]!]!), median(rates[names[1]!]!));
  const peer = median(rates["web-push's sendNotification"]!);
  for (const name of names) {
    const rate = median(rates[name]!);
    console.log(
      `${name.padEnd(44)} ${rate.toFixed(0).padStart(6)} /s (rounds ${rates[name]!.map((x) => x.toFixed(0)).join(', ')})  ` +
        `${(rate / peer).toFixed(2)}x web-push, ${(rate / floor).toFixed(2)}x the floor`,
    );
  }
  const pushKit = median(rates['push-kit campaign, owner API to completedAt']!);
  console.log(
    `\npush-kit's campaign: ${(subscriptions / pushKit).toFixed(2)} s; each part alone (median of 3): ` +
      `encryption on the pool (${encryptor.size} thread${encryptor.size === 1 ? '' : 's'}) ${(median(encryption) / 1000).toFixed(2)} s, ` +
      `posting (the floor) ${(subscriptions / floor).toFixed(2)} s, ` +
      `database (POST /campaigns, claims, results; a sender that answers at once) ${(median(database) / 1000).toFixed(2)} s, ` +
      `of it POST /campaigns ${(median(creation) / 1000).toFixed(2)} s`,
  );
  for (const line of tallyLines(statements!)) console.log(`  the database part's ${line}`);
  for (const line of tallyLines(campaignStatements!)) console.log(`  the campaign's (its last round) ${line}`);
  undiciAgent.destroy();
  httpsAgent.destroy();
  webPushAgent.destroy();
  await closePushConnections();
  await app.close();
  await cleanup();
  pushService.stop();
}

await main();
