// Figure 5 of the benchmarks: a whole campaign, as an owner sends one. The clock runs from the owner API's
// POST /campaigns (which writes one delivery row per subscriber) until every delivery's result is written back:
// database claims, RFC 8291 encryption, VAPID, the HTTPS request, the result rows. push-kit's campaign sender
// (encryption on its thread pool; HTTP/2 offered, and again with HTTP/1.1 keep-alive only) against web-push's
// sendNotification (keep-alive agent) driven by the same campaign runner over the same database rows at the
// same concurrency: the two sides differ only in how a message is encrypted, signed and posted.
// The fake push service (a child process, HTTP/2 and HTTP/1.1 over TLS) counts every message and decrypts one
// in SAMPLE (RFC 8291, as a browser would), so that it does not starve the senders of CPU on a small machine;
// a round counts only when each subscriber got exactly one message and every sampled one was readable.
//   npx tsx bench/send-throughput.ts [--subscriptions 5000] [--concurrency 100] [--rounds 3]
//   PUSHKIT_BENCH_DATABASE_URL=postgres://... npx tsx bench/send-throughput.ts   # rows on PostgreSQL
import { fork } from 'node:child_process';
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import webPush from 'web-push';
import { createApp } from '../server/http/app.ts';
import { runCampaign } from '../server/push/campaign-runner.ts';
import { sendCampaign, vapidSubjectOf } from '../server/push/campaign-sender.ts';
import { closePushConnections, type PushResult } from '../server/push/send.ts';
import { PushServiceAllowlist } from '../server/push/push-services.ts';
import { DatabaseDeliveryStore } from '../server/store/database-delivery-store.ts';
import type { Database } from '../server/store/database.ts';
import { ensureOwnerKey } from '../server/store/owner-keys.ts';
import { generateVapidKeyPair } from '../server/vapid-keys.ts';
import { createSelfSignedCertificate, createSubscriberKeys, decryptPushBody } from '../tests/support/fake-push-service.ts';
import { openTempDatabase, SITE_HASH, testSite } from '../tests/support/server.ts';
import { openThrowawayPostgres } from '../tests/support/throwaway-postgres.ts';

const { values } = parseArgs({
  options: {
    subscriptions: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    serve: { type: 'boolean', default: false },
  },
});

/** The fake push service decrypts one message in SAMPLE. */
const SAMPLE = 50;

interface RoundReport {
  messages: number;
  subscribers: number;
  decrypted: number;
  problems: string[];
}

if (values.serve) {
  await serveCountingPushService();
} else {
  await main();
}

/** The child process: the fake push service, over TLS with HTTP/2 and HTTP/1.1 (ALPN), as FCM and Mozilla's. */
async function serveCountingPushService(): Promise<void> {
  const keys = Array.from({ length: Number(values.subscriptions) }, () => createSubscriberKeys());
  const dir = mkdtempSync(join(tmpdir(), 'bench-push-'));
  const { keyPath, certPath } = createSelfSignedCertificate(dir);
  const ca = readFileSync(certPath, 'utf8');
  let seen = new Map<number, number>();
  let report: RoundReport = { messages: 0, subscribers: 0, decrypted: 0, problems: [] };
  const server = createSecureServer({ key: readFileSync(keyPath), cert: ca, allowHTTP1: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const subscriber = Number(/^\/s(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
      report.messages += 1;
      seen.set(subscriber, (seen.get(subscriber) ?? 0) + 1);
      if (subscriber % SAMPLE === 0) {
        try {
          JSON.parse(decryptPushBody(Buffer.concat(chunks), keys[subscriber]!).toString('utf8'));
          report.decrypted += 1;
        } catch (error) {
          report.problems.push(`${req.url}: ${(error as Error).message}`);
        }
      }
      res.writeHead(201, { location: `${req.url}/message` }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  process.send!({ origin: `https://127.0.0.1:${port}`, ca, keys: keys.map(({ p256dh, auth }) => ({ p256dh, auth })) });
  process.on('message', () => {
    const twice = [...seen.values()].filter((count) => count > 1).length;
    if (twice > 0) report.problems.push(`${twice} subscribers got more than one message`);
    process.send!({ ...report, subscribers: seen.size });
    seen = new Map();
    report = { messages: 0, subscribers: 0, decrypted: 0, problems: [] };
  });
  process.on('disconnect', () => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

async function openBenchDatabase(): Promise<{ db: Database; label: string; cleanup: () => Promise<void> }> {
  const url = process.env.PUSHKIT_BENCH_DATABASE_URL;
  if (url) return { ...(await openThrowawayPostgres(url, 'pushkit_bench')), label: 'PostgreSQL' };
  return { ...(await openTempDatabase()), label: 'PGlite (embedded)' };
}

/** Subscribers straight into the table, endpoint `/s<i>` of the fake service with that subscriber's keys. */
async function seedSubscribers(db: Database, origin: string, keys: Array<{ p256dh: string; auth: string }>): Promise<void> {
  for (let start = 0; start < keys.length; start += 1000) {
    const batch = keys.slice(start, start + 1000);
    await db.query(
      `INSERT INTO subscribers (id, site_hash, uuid, status, endpoint, p256dh, auth, browser_type, language)
       SELECT 'sub-' || i, $1, 'uuid-' || i, 'subscribed', $2 || '/s' || i, p256dh, auth, 'chrome', 'en-US'
       FROM unnest($3::int[], $4::text[], $5::text[]) AS t(i, p256dh, auth)`,
      [SITE_HASH, origin, batch.map((_, index) => start + index), batch.map((key) => key.p256dh), batch.map((key) => key.auth)],
    );
  }
}

async function main(): Promise<void> {
  const subscriptions = Number(values.subscriptions);
  const concurrency = Number(values.concurrency);
  const rounds = Number(values.rounds);
  const child = fork(import.meta.filename, ['--serve', '--subscriptions', String(subscriptions)], { stdio: 'inherit' });
  const { origin, ca, keys } = await new Promise<{ origin: string; ca: string; keys: Array<{ p256dh: string; auth: string }> }>((resolve) =>
    child.once('message', (message) => resolve(message as never)),
  );
  const pushServices = PushServiceAllowlist.fromSetting([origin]);
  const { db, label, cleanup } = await openBenchDatabase();
  const site = testSite();
  const app = await createApp({ sites: [site], db, rateLimit: false, pushServices });
  const ownerKey = (await ensureOwnerKey(db, site))!;
  await seedSubscribers(db, origin, keys);
  const vapid = generateVapidKeyPair();
  const subject = vapidSubjectOf(site);
  const webPushAgent = new HttpsAgent({ ca, keepAlive: true, maxSockets: concurrency });

  /** The owner's POST /campaigns: the campaign and one pending delivery per subscriber. */
  const createCampaign = async (title: string): Promise<string> => {
    const reply = await app.inject({
      method: 'POST',
      url: `/api/v1/sites/${site.name}/campaigns`,
      headers: { authorization: `Bearer ${ownerKey}` },
      payload: { title, body: 'Fifty percent off every brush and ink', url: 'https://letters.example/sale', ttl: 3600 },
    });
    if (reply.statusCode !== 200 && reply.statusCode !== 201) throw new Error(`POST /campaigns: ${reply.statusCode} ${reply.body}`);
    return String((reply.json() as { campaignId: string | number }).campaignId);
  };

  const webPushSend = async (delivery: {
    subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
    payload: string | Uint8Array;
  }): Promise<PushResult> => {
    const response = await webPush.sendNotification(delivery.subscription, Buffer.from(delivery.payload), {
      vapidDetails: { subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
      TTL: 3600,
      agent: webPushAgent,
    });
    return { outcome: 'delivered', statusCode: response.statusCode };
  };

  const senders: Record<string, (campaignId: string) => Promise<number>> = {
    'push-kit, HTTP/2': async (campaignId) =>
      (await sendCampaign(db, site, campaignId, vapid, { ca, pushServices, concurrency, http2: true })).delivered,
    'push-kit, HTTP/1.1 keep-alive': async (campaignId) =>
      (await sendCampaign(db, site, campaignId, vapid, { ca, pushServices, concurrency, http2: false })).delivered,
    // What sendCampaign did before issue 21: the same runner and rows, encryption in the main thread.
    'push-kit before: no thread pool': async (campaignId) =>
      (
        await runCampaign(new DatabaseDeliveryStore(db, site.config), campaignId, {
          vapid,
          subject,
          ttl: 3600,
          concurrency,
          ca,
          pushServices,
          http2: false,
        })
      ).delivered,
    'web-push, HTTP/1.1 keep-alive': async (campaignId) =>
      (
        await runCampaign(new DatabaseDeliveryStore(db, site.config), campaignId, {
          vapid,
          subject,
          ttl: 3600,
          concurrency,
          send: webPushSend,
        })
      ).delivered,
  };

  const checkRound = async (sender: string): Promise<void> => {
    const report = await new Promise<RoundReport>((resolve) => {
      child.once('message', (message) => resolve(message as RoundReport));
      child.send('report');
    });
    const expectedSamples = Math.ceil(subscriptions / SAMPLE);
    if (
      report.subscribers !== subscriptions ||
      report.messages !== subscriptions ||
      report.decrypted !== expectedSamples ||
      report.problems.length
    ) {
      throw new Error(`${sender}: ${JSON.stringify({ ...report, problems: report.problems.slice(0, 3) })}`);
    }
  };

  const rates: Record<string, number[]> = {};
  /** Milliseconds of each round spent in POST /campaigns (writing the delivery rows). */
  const creating: number[] = [];
  let number = 0;
  const round = async (name: string, send: (campaignId: string) => Promise<number>): Promise<number> => {
    number += 1;
    const start = performance.now();
    const campaignId = await createCampaign(`Sale ${number}`);
    creating.push(performance.now() - start);
    const delivered = await send(campaignId);
    const seconds = (performance.now() - start) / 1000;
    if (delivered !== subscriptions) throw new Error(`${name} delivered ${delivered} of ${subscriptions}`);
    await checkRound(name);
    return subscriptions / seconds;
  };
  for (const [name, send] of Object.entries(senders)) await round(name, send); // warm-up: connections, JIT, threads
  for (let r = 0; r < rounds; r += 1) {
    for (const [name, send] of Object.entries(senders)) (rates[name] ??= []).push(await round(name, send));
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `a campaign to ${subscriptions} subscribers (${label}), concurrency ${concurrency}, median of ${rounds} rounds; owner API -> delivery rows -> claims -> encryption -> HTTPS -> results written; fake push service decrypts 1 in ${SAMPLE}`,
  );
  const peer = median(rates['web-push, HTTP/1.1 keep-alive']!);
  for (const [name, list] of Object.entries(rates)) {
    const rate = median(list);
    console.log(
      `${name.padEnd(32)} ${rate.toFixed(0).padStart(7)} notifications/s (rounds: ${list.map((x) => x.toFixed(0)).join(', ')})   ratio vs web-push ${(rate / peer).toFixed(2)}x`,
    );
  }
  console.log(`POST /campaigns (the delivery rows) took a median ${median(creating).toFixed(0)} ms of each round`);
  webPushAgent.destroy();
  await closePushConnections();
  await app.close();
  await cleanup();
  child.disconnect();
}
