// Web Push sending throughput: notifications per second to N subscriptions on a local fake HTTPS push service
// (in a child process, so it does not share the sender's CPU), for push-kit's sender (sendPush, and the whole
// campaign runner over an in-memory store) against the web-push package's sendNotification at the same
// concurrency, measured in the same run. Each sender gets a warm-up round, then the median of the rounds.
// The fake service holds the subscriptions' private keys: it decrypts every message (RFC 8291, as a browser
// would) and counts it; a round counts only when every subscription got its message, readable, once.
//   npx tsx bench/send-throughput.ts [--subscriptions 10000] [--concurrency 100] [--rounds 3]
import { fork } from 'node:child_process';
import { Agent as HttpsAgent } from 'node:https';
import { parseArgs } from 'node:util';
import webPush from 'web-push';
import { runCampaign } from '../server/push/campaign-runner.ts';
import { InMemoryDeliveryStore } from '../server/push/delivery-store.ts';
import { closePushConnections, sendPush, type PushSubscriptionTarget } from '../server/push/send.ts';
import { PushServiceAllowlist } from '../server/push/push-services.ts';
import { generateVapidKeyPair } from '../server/vapid-keys.ts';
import { createSubscriberKeys, decryptPushBody, startFakePushService } from '../tests/support/fake-push-service.ts';

const { values } = parseArgs({
  options: {
    subscriptions: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    serve: { type: 'boolean', default: false },
  },
});

if (values.serve) {
  await serveDecryptingPushService();
} else {
  await main();
}

/** The child process: the fake push service, which decrypts and counts each message per round. */
async function serveDecryptingPushService(): Promise<void> {
  const keys = Array.from({ length: Number(values.subscriptions) }, () => createSubscriberKeys());
  const readable = new Map<number, Set<number>>();
  const problems: string[] = [];
  const service = await startFakePushService({
    record: false,
    onPush: ({ path, body }) => {
      const [, round, subscription] = /^\/r(\d+)\/s(\d+)$/.exec(path)?.map(Number) ?? [];
      try {
        JSON.parse(decryptPushBody(body, keys[subscription!]!).toString('utf8'));
        const seen = readable.get(round!) ?? new Set();
        if (seen.has(subscription!)) problems.push(`${path} received twice`);
        readable.set(round!, seen.add(subscription!));
      } catch (error) {
        problems.push(`${path}: ${(error as Error).message}`);
      }
    },
  });
  process.send!({ origin: service.origin, ca: service.ca, keys: keys.map(({ p256dh, auth }) => ({ p256dh, auth })) });
  process.on('message', (round: number) =>
    process.send!({ round, readable: readable.get(round)?.size ?? 0, problems: problems.splice(0) }),
  );
  process.on('disconnect', () => void service.close().then(() => process.exit(0)));
}

async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function main(): Promise<void> {
  const subscriptions = Number(values.subscriptions);
  const concurrency = Number(values.concurrency);
  const rounds = Number(values.rounds);
  const child = fork(import.meta.filename, ['--serve', '--subscriptions', String(subscriptions)], { stdio: 'inherit' });
  const {
    origin,
    ca,
    keys: subscriberKeys,
  } = await new Promise<{ origin: string; ca: string; keys: { p256dh: string; auth: string }[] }>((resolve) =>
    child.once('message', (m) => resolve(m as { origin: string; ca: string; keys: { p256dh: string; auth: string }[] })),
  );
  const pushServices = PushServiceAllowlist.fromSetting([origin]);
  /** Asks the fake service how many messages of `round` it decrypted; throws unless each subscription got one. */
  const checkRound = async (round: number, sender: string): Promise<void> => {
    const answer = await new Promise<{ readable: number; problems: string[] }>((resolve) => {
      child.once('message', (m) => resolve(m as { readable: number; problems: string[] }));
      child.send(round);
    });
    if (answer.readable !== subscriptions || answer.problems.length > 0) {
      throw new Error(
        `${sender}: the push service decrypted ${answer.readable} of ${subscriptions} messages; ${answer.problems.slice(0, 3).join('; ')}`,
      );
    }
  };
  const vapid = generateVapidKeyPair();
  const subject = 'mailto:bench@example.com';
  const payload = JSON.stringify({
    title: 'Weekend sale',
    body: 'Fifty percent off every brush and ink',
    url: 'https://shop.example/sale',
  });
  let round = 0;
  const targets = (): PushSubscriptionTarget[] => {
    round += 1;
    return Array.from({ length: subscriptions }, (_, i) => ({ endpoint: `${origin}/r${round}/s${i}`, keys: subscriberKeys[i]! }));
  };
  const webPushAgent = new HttpsAgent({ ca, keepAlive: true });

  const senders: Record<string, () => Promise<void>> = {
    'push-kit sendPush': () =>
      pool(targets(), concurrency, async (target) => {
        const result = await sendPush(target, payload, { vapid, subject, ca, pushServices, ttl: 3600 });
        if (result.outcome !== 'delivered') throw new Error(`push-kit: ${JSON.stringify(result)}`);
      }),
    'push-kit runCampaign': async () => {
      const store = new InMemoryDeliveryStore();
      targets().forEach((subscription, i) => store.add({ id: String(i), campaignId: 'bench', subscription, payload }));
      const counts = await runCampaign(store, 'bench', { vapid, subject, ca, pushServices, ttl: 3600, concurrency });
      if (counts.delivered !== subscriptions) throw new Error(`runCampaign delivered ${counts.delivered}`);
    },
    'web-push sendNotification': () =>
      pool(targets(), concurrency, async (target) => {
        const response = await webPush.sendNotification(target, payload, {
          vapidDetails: { subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
          TTL: 3600,
          agent: webPushAgent,
        });
        if (response.statusCode !== 201) throw new Error(`web-push: ${response.statusCode}`);
      }),
  };

  const rates: Record<string, number[]> = {};
  for (const [name, send] of Object.entries(senders)) {
    await send(); // warm-up: connections, JIT
    await checkRound(round, name);
  }
  for (let r = 0; r < rounds; r += 1) {
    for (const [name, send] of Object.entries(senders)) {
      const start = performance.now();
      await send();
      (rates[name] ??= []).push(subscriptions / ((performance.now() - start) / 1000));
      await checkRound(round, name);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `${subscriptions} subscriptions, concurrency ${concurrency}, median of ${rounds} rounds, fake push service over HTTPS on loopback (each message decrypted and counted)`,
  );
  const peer = median(rates['web-push sendNotification']!);
  for (const [name, list] of Object.entries(rates)) {
    const rate = median(list);
    console.log(`${name.padEnd(28)} ${rate.toFixed(0).padStart(7)} notifications/s   ratio vs web-push ${(rate / peer).toFixed(2)}x`);
  }
  webPushAgent.destroy();
  await closePushConnections();
  child.disconnect();
}
