// Shared by the server-faults-*.test.ts files: a project folder with one site, `push-kit serve` as a real
// process that a test may kill -9, and sync inserts sent from many loopback addresses (the provider limits
// requests per IP, as it should; a crowd of visitors comes from many).
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { whenReady } from './process-ready.ts';

export const BIN = fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url));
export const FAULT_SITE = { name: 'faults', hash: 'faults-site-01', origin: 'https://faults.example' };
const PLACEHOLDER_VAPID_KEY = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';

/** Writes `site-configs/faults.json` into `project`; returns its path. */
export async function writeFaultSite(project: string, vapidPublicKey = PLACEHOLDER_VAPID_KEY): Promise<string> {
  const file = join(project, 'site-configs', `${FAULT_SITE.name}.json`);
  await mkdir(join(project, 'site-configs'), { recursive: true });
  await writeFile(
    file,
    JSON.stringify({
      hash: FAULT_SITE.hash,
      companyName: 'Faults',
      origin: FAULT_SITE.origin,
      serverSyncUrl: 'https://push.faults.example',
      vapidPublicKey,
    }),
  );
  return file;
}

export interface ServeProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** The owner key printed on the first start of a project, else undefined. */
  ownerKey?: string;
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/**
 * Starts `push-kit serve` in `cwd` on a free port; resolves once it accepts requests. `wrap` runs it under another
 * command (`unshare --pid --fork ...` makes it PID 1 of a namespace, as in a container).
 */
export async function startServe(cwd: string, siteFile: string, env: NodeJS.ProcessEnv = {}, wrap: string[] = []): Promise<ServeProcess> {
  const command = [...wrap, process.execPath, BIN, 'serve', '--port', '0', '--sites', siteFile];
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
    env: { ...process.env, DATABASE_URL: '', NO_COLOR: '1', ...env },
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const { value: url, output } = await whenReady(
    child,
    (printed) => (printed.includes('Press Ctrl+C to stop.') ? /listening on (http:\/\/[\d.]+:\d+) /.exec(printed)?.[1] : undefined),
    'push-kit serve',
  );
  return {
    url,
    pid: child.pid!,
    child,
    ownerKey: /owner key for \S+ \(shown once, keep it secret\): (\S+)/.exec(output())?.[1],
    output,
    exited,
  };
}

/** kill -9, and waits until the process is gone. */
export async function killHard(serve: ServeProcess): Promise<void> {
  serve.child.kill('SIGKILL');
  await serve.exited;
}

/** SIGTERM, the way an operator stops the provider; resolves the exit code. */
export async function stopGracefully(serve: ServeProcess): Promise<number | null> {
  serve.child.kill('SIGTERM');
  return serve.exited;
}

export interface Subscription {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** A browser subscription never seen before; `label` shows in its endpoint. */
export function randomSubscription(label: string): Subscription {
  return {
    endpoint: `https://fcm.googleapis.com/fcm/send/${label}-${randomBytes(6).toString('hex')}`,
    p256dh: randomBytes(65).toString('base64url'),
    auth: randomBytes(16).toString('base64url'),
  };
}

/** A stored subscriber of the fault site, with how many 'subscribed' events it has. */
export interface StoredSubscriber {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  status: string;
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  events: number;
}

/** Reads every StoredSubscriber of FAULT_SITE; $1 is its hash. */
export const STORED_SUBSCRIBERS_SQL = `SELECT s.id, s.endpoint, s.p256dh, s.auth, s.status, s.subscription,
        (SELECT count(*)::int FROM events e WHERE e.subscriber_id = s.id AND e.kind = 'subscribed') AS events
   FROM subscribers s WHERE s.site_hash = $1`;

/** The row holds `subscription` whole (columns and JSON alike), subscribed, with exactly one 'subscribed' event. */
export function storedIntact(row: StoredSubscriber | undefined, subscription: Subscription): boolean {
  return (
    row !== undefined &&
    row.status === 'subscribed' &&
    row.p256dh === subscription.p256dh &&
    row.auth === subscription.auth &&
    row.subscription.endpoint === subscription.endpoint &&
    row.subscription.keys.p256dh === subscription.p256dh &&
    row.subscription.keys.auth === subscription.auth &&
    row.events === 1
  );
}

export function insertForm(subscription: Subscription, fields: Record<string, string> = {}): string {
  return new URLSearchParams({
    hash: FAULT_SITE.hash,
    action: 'insert',
    subscription: JSON.stringify({
      endpoint: subscription.endpoint,
      expirationTime: null,
      keys: { p256dh: subscription.p256dh, auth: subscription.auth },
    }),
    browserType: 'chrome',
    ...fields,
  }).toString();
}

export interface SyncAnswer {
  statusCode: number;
  retryAfter?: string;
  body: { status?: string; subscriberId?: string; message?: string };
}

const agents = new Map<string, Agent>();
/** A keep-alive connection pool whose connections leave from `127.0.0.<n>`. */
function agentFrom(n: number): Agent {
  const address = `127.0.0.${2 + (n % 250)}`;
  let agent = agents.get(address);
  if (!agent) {
    agent = new Agent({ localAddress: address, connections: 8 }); // undici ignores connect.localAddress
    agents.set(address, agent);
  }
  return agent;
}

export async function closeAgents(): Promise<void> {
  const open = [...agents.values()];
  agents.clear();
  await Promise.all(open.map((agent) => agent.destroy()));
}

/** POST /syncSubscriptionAction.php from loopback address number `from`; throws when the connection fails. */
export async function postSync(baseUrl: string, form: string, from: number, timeoutMs = 20_000): Promise<SyncAnswer> {
  const response = await request(`${baseUrl}/syncSubscriptionAction.php`, {
    method: 'POST',
    dispatcher: agentFrom(from),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: FAULT_SITE.origin },
    body: form,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const text = await response.body.text();
  const retryAfter = response.headers['retry-after'];
  return {
    statusCode: response.statusCode,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
    body: JSON.parse(text) as SyncAnswer['body'],
  };
}
