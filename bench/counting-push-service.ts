// The benchmarks' push service: a child process (so that it does not share the sender's CPU time), over TLS with
// HTTP/2 and HTTP/1.1 (ALPN), as FCM and Mozilla's are. Subscriber i's endpoint is `<origin>/s<i>`. It counts
// every message per subscriber and decrypts one in SAMPLE (RFC 8291, as a browser would; with a VAPID public key
// given, it also checks that message's VAPID JWT signature, RFC 8292), so that it does not
// starve the senders of CPU on a small machine; `report()` returns a round's counts and starts the next round.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../server/db/database.ts';
import {
  createSelfSignedCertificate,
  createSubscriberKeys,
  decryptPushBody,
  verifyVapidAuthorization,
} from '../tests/support/fake-push-service.ts';
import { SITE_HASH } from '../tests/support/server.ts';

export const SAMPLE = 50;

export interface RoundReport {
  messages: number;
  subscribers: number;
  decrypted: number;
  problems: string[];
}

export interface CountingPushService {
  origin: string;
  ca: string;
  keys: Array<{ p256dh: string; auth: string }>;
  /** This round's counts; throws unless each of `subscriptions` subscribers got exactly one readable message. */
  checkRound(label: string): Promise<RoundReport>;
  stop(): void;
}

/**
 * `vapidPublicKey`: the key every sampled message's VAPID JWT must verify against (unchecked without it).
 * `sharedKeys`: every subscriber gets the same key pair (a million pairs take minutes to make); the sender still
 * makes a fresh key agreement per message.
 */
export async function startCountingPushService(
  subscriptions: number,
  vapidPublicKey?: string,
  sharedKeys = false,
): Promise<CountingPushService> {
  const child: ChildProcess = fork(
    import.meta.filename,
    ['--serve', String(subscriptions), vapidPublicKey ?? '', sharedKeys ? 'shared' : ''],
    {
      stdio: 'inherit',
    },
  );
  const {
    origin,
    ca,
    keys: sent,
  } = await new Promise<{ origin: string; ca: string; keys: Array<{ p256dh: string; auth: string }> }>((resolve) =>
    child.once('message', (message) => resolve(message as never)),
  );
  const keys = sharedKeys ? Array.from({ length: subscriptions }, () => sent[0]!) : sent;
  return {
    origin,
    ca,
    keys,
    async checkRound(label) {
      const report = await new Promise<RoundReport>((resolve) => {
        child.once('message', (message) => resolve(message as RoundReport));
        child.send('report');
      });
      if (
        report.subscribers !== subscriptions ||
        report.messages !== subscriptions ||
        report.decrypted !== Math.ceil(subscriptions / SAMPLE) ||
        report.problems.length
      ) {
        throw new Error(`${label}: ${JSON.stringify({ ...report, problems: report.problems.slice(0, 3) })}`);
      }
      return report;
    },
    stop: () => child.disconnect(),
  };
}

/** Subscribers straight into the table (not through HTTP), each with its endpoint and keys at the service. */
export async function seedSubscribers(db: Database, origin: string, keys: Array<{ p256dh: string; auth: string }>): Promise<void> {
  for (let start = 0; start < keys.length; start += 10_000) {
    const batch = keys.slice(start, start + 10_000);
    await db.query(
      `INSERT INTO subscribers (id, site_hash, uuid, status, endpoint, p256dh, auth, browser_type, language)
       SELECT 'sub-' || i, $1, 'uuid-' || i, 'subscribed', $2 || '/s' || i, p256dh, auth, 'chrome', 'en-US'
       FROM unnest($3::int[], $4::text[], $5::text[]) AS t(i, p256dh, auth)`,
      [SITE_HASH, origin, batch.map((_, index) => start + index), batch.map((key) => key.p256dh), batch.map((key) => key.auth)],
    );
  }
}

async function serve(subscriptions: number, vapidPublicKey: string, sharedKeys: boolean): Promise<void> {
  const shared = sharedKeys ? createSubscriberKeys() : undefined;
  const keys = Array.from({ length: subscriptions }, () => shared ?? createSubscriberKeys());
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
          if (vapidPublicKey) verifyVapidAuthorization(String(req.headers.authorization), vapidPublicKey);
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
  process.send!({
    origin: `https://127.0.0.1:${port}`,
    ca,
    keys: (shared ? [shared] : keys).map(({ p256dh, auth }) => ({ p256dh, auth })),
  });
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

if (process.argv[2] === '--serve') await serve(Number(process.argv[3]), process.argv[4] ?? '', process.argv[5] === 'shared');
