// What a notification.delivered webhook costs a campaign (issue 30: at most 10% slower). N subscribers (20,000 by
// default) seeded straight into the table; the same campaign sent by push-kit's sender to the counting push service
// (bench/counting-push-service.ts) without any webhook endpoint and with one endpoint taking notification.delivered,
// whose events the provider's dispatcher sends meanwhile, in the same process, to an HTTPS receiver in a child
// process. Rounds alternate (without, with, without, with ...) in one run. Prints each campaign's time, the ratio
// with/without, and how long the webhooks took to be all delivered after the campaign (while a campaign is sent
// they go at a reduced pace, server/webhooks/webhook-dispatcher.ts WEBHOOK_BUSY_SHARE, and catch up after it).
//   npx tsx bench/webhook-overhead.ts [--subscriptions 20000] [--rounds 2] [--concurrency 100]
//   PUSHKIT_BENCH_DATABASE_URL=postgres://... for PostgreSQL (default: the embedded database, as `push-kit serve`)
import { benchArgs, wholeNumber } from './bench-args.ts';
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCampaign } from '../server/campaigns/campaign-store.ts';
import { sendCampaign } from '../server/campaigns/campaign-sender.ts';
import type { Database } from '../server/db/database.ts';
import { PushServiceAllowlist } from '../server/push/push-services.ts';
import { closePushConnections } from '../server/push/send.ts';
import { generateVapidKeyPair } from '../server/push/vapid-keys.ts';
import { addSiteWebhook, removeSiteWebhook, WebhookDispatcher, webhookUrlPolicy } from '../server/webhooks/index.ts';
import { createSelfSignedCertificate } from '../tests/support/fake-push-service.ts';
import { openTempDatabase, testSite } from '../tests/support/server.ts';
import { openThrowawayPostgres } from '../tests/support/throwaway-postgres.ts';
import { seedSubscribers, startCountingPushService } from './counting-push-service.ts';

/** The receiver, in its own process: answers 200 and counts. */
function serveReceiver(): void {
  const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const { keyPath, certPath } = createSelfSignedCertificate(dir);
  const ca = readFileSync(certPath, 'utf8');
  let received = 0;
  const server = createServer({ key: readFileSync(keyPath), cert: ca }, (req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.send!({ origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, ca });
  });
  process.on('message', () => process.send!({ received }));
  process.on('disconnect', () => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

async function main(): Promise<void> {
  const usage = 'npx tsx bench/webhook-overhead.ts [--subscriptions 20000] [--rounds 2] [--concurrency 100] [--queue-only]';
  const values = benchArgs(usage, {
    subscriptions: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '100' },
    /** Queue the events but send them only after the last round (what the queue's writes alone cost). */
    'queue-only': { type: 'boolean', default: false },
  });
  const subscriptions = wholeNumber('subscriptions', values.subscriptions, usage);
  const rounds = wholeNumber('rounds', values.rounds, usage);
  const concurrency = wholeNumber('concurrency', values.concurrency, usage);

  const pushService = await startCountingPushService(subscriptions);
  const receiverProcess = fork(import.meta.filename, ['--receiver'], { stdio: 'inherit' });
  const receiver = await new Promise<{ origin: string; ca: string }>((resolve) =>
    receiverProcess.once('message', (m) => resolve(m as never)),
  );
  const receivedSoFar = () =>
    new Promise<number>((resolve) => {
      receiverProcess.once('message', (m) => resolve((m as { received: number }).received));
      receiverProcess.send('count');
    });

  const serverUrl = process.env.PUSHKIT_BENCH_DATABASE_URL;
  const opened: { db: Database; cleanup: () => Promise<void> } = serverUrl
    ? await openThrowawayPostgres(serverUrl, 'pushkit_webhooks')
    : await openTempDatabase();
  const { db } = opened;
  const site = testSite();
  await seedSubscribers(db, pushService.origin, pushService.keys);
  await db.query('ANALYZE');
  const vapid = generateVapidKeyPair();
  const pushServices = PushServiceAllowlist.fromSetting([pushService.origin]);
  // As in the provider (server/start-provider.ts): the dispatcher knows when a campaign is being sent.
  let sending = false;
  const dispatcher = new WebhookDispatcher(db, {
    policy: webhookUrlPolicy({ privateOrigins: [receiver.origin] }),
    ca: receiver.ca,
    log: (line) => console.log(line),
    busy: () => sending,
  });
  if (!values['queue-only']) await dispatcher.start();

  const campaign = async (label: string): Promise<number> => {
    const { campaignId } = await createCampaign(db, site, {
      title: label,
      body: 'Fifty percent off every brush',
      ttl: 3600,
      urgency: 'normal',
    });
    const start = performance.now();
    sending = true;
    const counts = await sendCampaign(db, site, campaignId, vapid, { ca: pushService.ca, pushServices, concurrency }).finally(() => {
      sending = false;
    });
    const seconds = (performance.now() - start) / 1000;
    if (counts.delivered !== subscriptions) throw new Error(`${label}: delivered ${counts.delivered} of ${subscriptions}`);
    await pushService.checkRound(label);
    return seconds;
  };

  const without: number[] = [];
  const withHook: number[] = [];
  const drains: number[] = [];
  console.log(`${subscriptions.toLocaleString('en')} subscribers, ${db.kind} database, sender concurrency ${concurrency}`);
  for (let round = 1; round <= rounds; round += 1) {
    without.push(await campaign(`round ${round} without webhook`));
    console.log(`round ${round}: without webhook ${without.at(-1)!.toFixed(2)} s`);
    const { endpoint } = await addSiteWebhook(
      db,
      site,
      { url: `${receiver.origin}/hook`, events: ['notification.delivered'] },
      webhookUrlPolicy({ privateOrigins: [receiver.origin] }),
    );
    const before = await receivedSoFar();
    withHook.push(await campaign(`round ${round} with webhook`));
    const done = performance.now();
    if (values['queue-only']) await dispatcher.runDue();
    while ((await receivedSoFar()) - before < subscriptions) await new Promise((resolve) => setTimeout(resolve, 100));
    drains.push((performance.now() - done) / 1000);
    console.log(
      `round ${round}: with notification.delivered webhook ${withHook.at(-1)!.toFixed(2)} s; all ${subscriptions} webhooks delivered ${drains.at(-1)!.toFixed(2)} s after`,
    );
    await removeSiteWebhook(db, site, endpoint.endpointId);
  }
  const total = (list: number[]) => list.reduce((sum, value) => sum + value, 0);
  const ratio = total(withHook) / total(without);
  console.log(
    `\ncampaign time with / without a notification.delivered webhook: ${ratio.toFixed(3)} ` +
      `(${total(withHook).toFixed(2)} s / ${total(without).toFixed(2)} s over ${rounds} round${rounds === 1 ? '' : 's'}; the bound is 1.10)`,
  );
  console.log(`webhooks all delivered at most ${Math.max(...drains).toFixed(2)} s after their campaign ended`);
  await dispatcher.close();
  await closePushConnections();
  await opened.cleanup();
  pushService.stop();
  receiverProcess.disconnect();
}

if (process.argv.includes('--receiver')) serveReceiver();
else await main();
