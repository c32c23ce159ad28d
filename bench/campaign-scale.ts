// A campaign at scale on PostgreSQL (issue 21): N subscribers (100,000 by default) seeded straight into the
// table, one campaign created through the owner API and sent by push-kit's campaign sender to the counting push
// service (bench/counting-push-service.ts), then the same audience sent by web-push through the same runner and
// rows, as the peer. Reports the time to create the delivery rows, the time of one claim with the whole
// campaign pending, the time to finish, the rate against web-push's, and what one campaign adds to the database
// (table and index bytes per subscriber): the figures docs/scaling.md plans from. While it sends, the owner API's
// reads (the campaign list and the campaign) are timed every 100 ms, the process's resident memory sampled and the
// send's statements tallied (claims, result writes: how many, rows each, how long each waited for its answer);
// afterwards the campaign's delivery rows are pruned as after its reporting window and the bytes left counted.
// With more than 200,000 subscribers every subscriber shares one key pair at the push service (the sender still
// makes a fresh key agreement per message) and the web-push peer is left out unless --peer. The CPU of the send is
// split by process (this one with its threads, the push service, the database's backends: /proc, PostgreSQL on this
// machine); --statements adds PostgreSQL's own time per statement (pg_stat_statements, which the server must preload).
//   PUSHKIT_BENCH_DATABASE_URL=postgres://... npx tsx bench/campaign-scale.ts [--subscriptions 100000] [--concurrency 100] [--no-peer] [--statements]
import { benchArgs, wholeNumber } from './bench-args.ts';
import { Agent as HttpsAgent } from 'node:https';
import { loadavg } from 'node:os';
import webPush from 'web-push';
import { createApp } from '../server/http/app.ts';
import { runCampaign } from '../server/campaigns/campaign-runner.ts';
import { sendCampaign, vapidSubjectOf } from '../server/campaigns/campaign-sender.ts';
import { PushServiceAllowlist } from '../server/push/push-services.ts';
import { closePushConnections } from '../server/push/send.ts';
import { DatabaseDeliveryStore } from '../server/campaigns/database-delivery-store.ts';
import { pruneDeliveries } from '../server/campaigns/delivery-pruning.ts';
import type { Database } from '../server/db/database.ts';
import { ensureOwnerKey } from '../server/http/owner-keys.ts';
import { generateVapidKeyPair } from '../server/push/vapid-keys.ts';
import { testSite } from '../tests/support/server.ts';
import { openThrowawayPostgres } from '../tests/support/throwaway-postgres.ts';
import { seedSubscribers, startCountingPushService } from './counting-push-service.ts';
import { cpuLine, cpuSampler, tallied, tallyLines } from './statement-tally.ts';

const USAGE =
  'PUSHKIT_BENCH_DATABASE_URL=postgres://... npx tsx bench/campaign-scale.ts [--subscriptions 100000] [--concurrency 100] [--no-peer] [--statements]';
const values = benchArgs(USAGE, {
  subscriptions: { type: 'string', default: '100000' },
  concurrency: { type: 'string', default: '100' },
  'no-peer': { type: 'boolean', default: false },
  peer: { type: 'boolean', default: false },
  statements: { type: 'boolean', default: false },
});

const TABLES = ['deliveries', 'delivery_counts', 'delivery_breakdown', 'events', 'campaigns', 'subscribers'] as const;

/** Bytes of each table with its indexes and TOAST. */
async function sizes(db: Database): Promise<Record<string, number>> {
  const { rows } = await db.query<{ name: string; bytes: string }>(
    `SELECT t AS name, pg_total_relation_size(t::regclass)::text AS bytes FROM unnest($1::text[]) AS t`,
    [TABLES],
  );
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.bytes)]));
}

async function main(): Promise<void> {
  const serverUrl = process.env.PUSHKIT_BENCH_DATABASE_URL;
  if (!serverUrl) throw new Error('set PUSHKIT_BENCH_DATABASE_URL=postgres://... (a server where a throwaway database can be created)');
  const subscriptions = wholeNumber('subscriptions', values.subscriptions, USAGE);
  const concurrency = wholeNumber('concurrency', values.concurrency, USAGE);
  const keysStart = performance.now();
  const large = subscriptions > 200_000;
  const vapid = generateVapidKeyPair();
  const pushService = await startCountingPushService(subscriptions, vapid.publicKey, large);
  console.log(`push service ready with ${subscriptions} subscriber keys in ${((performance.now() - keysStart) / 1000).toFixed(1)} s`);
  const { origin, ca, keys } = pushService;
  const { db, cleanup } = await openThrowawayPostgres(serverUrl, 'pushkit_scale');
  const pushServices = PushServiceAllowlist.fromSetting([origin]);
  const site = testSite();
  const app = await createApp({ sites: [site], db, rateLimit: false, pushServices });
  const ownerKey = (await ensureOwnerKey(db, site))!;
  const seedStart = performance.now();
  await seedSubscribers(db, origin, keys);
  await db.query('ANALYZE');
  console.log(`seeded ${subscriptions} subscribers in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

  const createCampaign = async (title: string): Promise<{ id: string; ms: number }> => {
    const start = performance.now();
    const reply = await app.inject({
      method: 'POST',
      url: `/api/v1/sites/${site.name}/campaigns`,
      headers: { authorization: `Bearer ${ownerKey}` },
      payload: { title, body: 'Fifty percent off every brush and ink', url: 'https://letters.example/sale', ttl: 3600 },
    });
    if (reply.statusCode !== 200 && reply.statusCode !== 201) throw new Error(`POST /campaigns: ${reply.statusCode} ${reply.body}`);
    return { id: String((reply.json() as { campaignId: string | number }).campaignId), ms: performance.now() - start };
  };

  const before = await sizes(db);
  const creationCpu = cpuSampler(db);
  const campaign = await createCampaign('Sale at scale');
  const creationSplit = await creationCpu.stop();
  const created = await sizes(db);
  // One claim of a sender's batch with the whole campaign pending, then given back.
  const probe = new DatabaseDeliveryStore(db, site.config);
  const claimTimes: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const start = performance.now();
    await probe.claimPending(campaign.id, concurrency * 2);
    claimTimes.push(performance.now() - start);
    probe.abandonClaims();
    await db.query(`UPDATE deliveries SET claimed_at = NULL, attempts = 0 WHERE campaign_id = $1 AND claimed_at IS NOT NULL`, [
      campaign.id,
    ]);
  }
  // while it sends: the owner's reads, timed, and the process's memory
  const reads: number[] = [];
  const rss: number[] = [];
  let sending = true;
  const ownerGet = async (url: string) => {
    const start = performance.now();
    const reply = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ownerKey}` } });
    if (reply.statusCode !== 200) throw new Error(`GET ${url}: ${reply.statusCode}`);
    reads.push(performance.now() - start);
  };
  const reader = (async () => {
    while (sending) {
      await ownerGet(`/api/v1/sites/${site.name}/campaigns`);
      await ownerGet(`/api/v1/sites/${site.name}/campaigns/${campaign.id}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const sampler = setInterval(() => rss.push(process.memoryUsage().rss), 1000);
  const sendStart = performance.now();
  let lastReport = sendStart;
  const send = tallied(db);
  // --statements: PostgreSQL's own time per statement of the send (pg_stat_statements, which the server must preload)
  if (values.statements) {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await db.query(`SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)`);
  }
  const sendCpu = cpuSampler(db);
  const counts = await sendCampaign(send.db, site, campaign.id, vapid, {
    ca,
    pushServices,
    concurrency,
    // a line every 30 s: how far, how fast, the reads' p99 so far, memory
    onProgress: (progress) => {
      const now = performance.now();
      if (now - lastReport < 30_000) return;
      lastReport = now;
      const sofar = [...reads].sort((a, b) => a - b);
      console.log(
        `  ${((now - sendStart) / 1000).toFixed(0)} s: ${progress.delivered.toLocaleString('en')} delivered (${(progress.delivered / ((now - sendStart) / 1000)).toFixed(0)}/s), ` +
          `reads p99 ${sofar[Math.floor(0.99 * sofar.length)]?.toFixed(0)} ms, rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB, load ${loadavg()[0]!.toFixed(1)}`,
      );
    },
  });
  const sendSeconds = (performance.now() - sendStart) / 1000;
  const sendSplit = await sendCpu.stop();
  sending = false;
  clearInterval(sampler);
  await reader;
  if (counts.delivered !== subscriptions) throw new Error(`push-kit delivered ${counts.delivered} of ${subscriptions}`);
  await pushService.checkRound('push-kit');
  const after = await sizes(db);
  const pushKitRate = subscriptions / (sendSeconds + campaign.ms / 1000);

  console.log(
    `\na campaign to ${subscriptions.toLocaleString('en')} subscribers on PostgreSQL, concurrency ${concurrency}, load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    `POST /campaigns (campaign and delivery rows): ${(campaign.ms / 1000).toFixed(1)} s; PostgreSQL's CPU ${(creationSplit.PostgreSQL / 1000).toFixed(1)} s`,
  );
  const claimMedian = [...claimTimes].sort((a, b) => a - b)[Math.floor(claimTimes.length / 2)]!;
  console.log(
    `one claim of ${concurrency * 2} with all ${subscriptions.toLocaleString('en')} pending: median ${claimMedian.toFixed(1)} ms (of 5)`,
  );
  console.log(
    `push-kit sent it in ${sendSeconds.toFixed(1)} s; end to end (POST /campaigns to results written) ${(sendSeconds + campaign.ms / 1000).toFixed(1)} s: ${pushKitRate.toFixed(0)} notifications/s`,
  );
  for (const line of tallyLines(send.tally)) console.log(`  ${line}`);
  console.log(`  ${cpuLine(sendSplit, subscriptions)}`);
  if (values.statements) {
    const { rows } = await db.query<{ query: string; calls: string; total: number; mean: number; rows: string }>(
      `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query, calls::text, total_exec_time AS total, mean_exec_time AS mean, rows::text
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       ORDER BY total_exec_time DESC LIMIT 10`,
    );
    for (const row of rows) {
      console.log(
        `  pg: ${(row.total / 1000).toFixed(2)} s, ${row.calls} calls, ${row.mean.toFixed(2)} ms each, ${row.rows} rows: ${row.query}`,
      );
    }
  }
  console.log('database growth of one campaign (tables with indexes):');
  for (const table of TABLES) {
    const grown = after[table]! - before[table]!;
    console.log(
      `  ${table.padEnd(12)} +${(grown / 1e6).toFixed(1)} MB (${(grown / subscriptions).toFixed(0)} B per subscriber; ${(
        (created[table]! - before[table]!) /
        1e6
      ).toFixed(1)} MB of it when created)`,
    );
  }
  const total = TABLES.reduce((sum, table) => sum + after[table]! - before[table]!, 0);
  console.log(`  total        +${(total / 1e6).toFixed(1)} MB (${(total / subscriptions).toFixed(0)} B per subscriber)`);
  const sorted = [...reads].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  console.log(
    `owner API reads while it sent (the list and the campaign, ${reads.length}): p50 ${at(0.5).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms`,
  );
  const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
  console.log(
    `resident memory while it sent: first ${mb(rss[0] ?? 0)} MB, min ${mb(Math.min(...rss))} MB, max ${mb(Math.max(...rss))} MB, last ${mb(rss.at(-1) ?? 0)} MB`,
  );
  // after the reporting window: its rows pruned (figures kept), then what autovacuum would do
  // pruning waits until no report can still count (the campaign's TTL after it was done): that time has passed
  await db.query(`UPDATE campaigns SET completed_at = completed_at - interval '1 day' WHERE id = $1`, [campaign.id]);
  const pruneStart = performance.now();
  const pruned = await pruneDeliveries(db, 0);
  const pruneSeconds = (performance.now() - pruneStart) / 1000;
  await db.query('VACUUM deliveries');
  const kept = await sizes(db);
  const left = TABLES.filter((table) => table !== 'subscribers').reduce((sum, table) => sum + kept[table]! - before[table]!, 0);
  console.log(
    `after the reporting window: ${pruned.toLocaleString('en')} rows pruned in ${pruneSeconds.toFixed(1)} s; the campaign holds ` +
      `${(left / subscriptions).toFixed(0)} B per subscriber (deliveries ${((kept.deliveries! - before.deliveries!) / subscriptions).toFixed(0)} B: ` +
      `its emptied pages; delivery_counts, delivery_breakdown, campaigns and events the rest)`,
  );
  // how much of those pages the next campaign's rows reuse
  const next = await createCampaign('The next campaign');
  const reused = await sizes(db);
  console.log(
    `the next campaign's ${subscriptions.toLocaleString('en')} rows (POST /campaigns ${(next.ms / 1000).toFixed(1)} s) grew deliveries by ` +
      `${((reused.deliveries! - kept.deliveries!) / subscriptions).toFixed(0)} B per subscriber`,
  );
  await app.inject({
    method: 'POST',
    url: `/api/v1/sites/${site.name}/campaigns/${next.id}/cancel`,
    headers: { authorization: `Bearer ${ownerKey}` },
  });

  if (values.peer || (!large && !values['no-peer'])) {
    const subject = vapidSubjectOf(site);
    const agent = new HttpsAgent({ ca, keepAlive: true, maxSockets: concurrency });
    const peer = await createCampaign('Sale at scale, web-push');
    const peerStart = performance.now();
    const peerCounts = await runCampaign(new DatabaseDeliveryStore(db, site.config), peer.id, {
      vapid,
      subject,
      ttl: 3600,
      concurrency,
      send: async (delivery) => {
        const response = await webPush.sendNotification(delivery.subscription, Buffer.from(delivery.payload), {
          vapidDetails: { subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
          TTL: 3600,
          agent,
        });
        return { outcome: 'delivered', statusCode: response.statusCode };
      },
    });
    const peerSeconds = (performance.now() - peerStart) / 1000;
    if (peerCounts.delivered !== subscriptions) throw new Error(`web-push delivered ${peerCounts.delivered} of ${subscriptions}`);
    await pushService.checkRound('web-push');
    const peerRate = subscriptions / (peerSeconds + peer.ms / 1000);
    console.log(
      `web-push through the same runner and rows: ${peerSeconds.toFixed(1)} s, ${peerRate.toFixed(0)} notifications/s; push-kit ${(pushKitRate / peerRate).toFixed(2)}x`,
    );
    agent.destroy();
  }
  await closePushConnections();
  await app.close();
  await cleanup();
  pushService.stop();
}

await main();
