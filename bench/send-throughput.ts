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
import { Agent as HttpsAgent } from 'node:https';
import { parseArgs } from 'node:util';
import webPush from 'web-push';
import { createApp } from '../server/http/app.ts';
import { runCampaign } from '../server/campaigns/campaign-runner.ts';
import { sendCampaign, vapidSubjectOf } from '../server/campaigns/campaign-sender.ts';
import { closePushConnections, type PushResult } from '../server/push/send.ts';
import { PushServiceAllowlist } from '../server/push/push-services.ts';
import { DatabaseDeliveryStore } from '../server/campaigns/database-delivery-store.ts';
import type { Database } from '../server/db/database.ts';
import { ensureOwnerKey } from '../server/http/owner-keys.ts';
import { generateVapidKeyPair } from '../server/push/vapid-keys.ts';
import { openTempDatabase, testSite } from '../tests/support/server.ts';
import { SAMPLE, seedSubscribers, startCountingPushService } from './counting-push-service.ts';
import { openThrowawayPostgres } from '../tests/support/throwaway-postgres.ts';

const { values } = parseArgs({
  options: {
    subscriptions: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
  },
});

await main();

async function openBenchDatabase(): Promise<{ db: Database; label: string; cleanup: () => Promise<void> }> {
  const url = process.env.PUSHKIT_BENCH_DATABASE_URL;
  if (url) return { ...(await openThrowawayPostgres(url, 'pushkit_bench')), label: 'PostgreSQL' };
  return { ...(await openTempDatabase()), label: 'PGlite (embedded)' };
}

async function main(): Promise<void> {
  const subscriptions = Number(values.subscriptions);
  const concurrency = Number(values.concurrency);
  const rounds = Number(values.rounds);
  const pushService = await startCountingPushService(subscriptions);
  const { origin, ca, keys } = pushService;
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
    await pushService.checkRound(name);
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
  pushService.stop();
}
