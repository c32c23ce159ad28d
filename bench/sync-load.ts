// Load of the sync call /syncSubscriptionAction.php with autocannon, shared by the soak (bench/soak.ts, against
// a `push-kit serve` process) and its short form in the unit tests (tests/integration/server-load.test.ts). The mix is
// the one of bench/sync-server.ts: one request in three inserts a subscriber never seen before (a distinct
// endpoint each), one updates a seeded subscriber, one is an http-sync of a seeded subscriber. Every response
// is recorded per connection, so afterwards the database can be asked whether each insert answered 200 is
// stored, once, under the subscriber id the answer named.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import autocannon from 'autocannon';
import type { Queryable } from '../server/db/database.ts';

export const LOAD_ORIGIN = 'https://load.example';
const VAPID_PUBLIC_KEY = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';
const AUTH = 'oMI2KGm4uNsKFv_2oqmNvg';

/** A site config a provider can host (the text of a site-configs/*.json file). */
export function loadSiteConfig(hash: string): Record<string, string> {
  return { hash, companyName: 'Load', origin: LOAD_ORIGIN, serverSyncUrl: 'http://127.0.0.1:1', vapidPublicKey: VAPID_PUBLIC_KEY };
}

/** A fresh prefix for site hashes and endpoints, so runs against one PostgreSQL database never meet. */
export function newRunId(): string {
  return randomBytes(4).toString('hex');
}

/** The push service of the load's subscriptions; never sent to, so the provider under load must allow it. */
export const LOAD_PUSH_SERVICE = 'https://push.load.example';

function endpointOf(runId: string, hash: string, n: string): string {
  return `${LOAD_PUSH_SERVICE}/send/${runId}/${hash}/${n}`;
}

function subscriptionOf(endpoint: string): string {
  return JSON.stringify({ endpoint, keys: { p256dh: VAPID_PUBLIC_KEY, auth: AUTH } });
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

const HEADERS = { 'content-type': 'application/x-www-form-urlencoded', origin: LOAD_ORIGIN };

interface SeededSubscriber {
  id: string;
  /** The secret the insert reply issued: updates and http-syncs act as the subscriber's browser with it. */
  secret: string;
  endpoint: string;
}

/** Inserts `perSite` subscribers in each site one by one, for the updates and http-syncs of the load. */
export async function seedSubscribers(
  url: string,
  runId: string,
  hashes: string[],
  perSite: number,
): Promise<Map<string, SeededSubscriber[]>> {
  const known = new Map<string, SeededSubscriber[]>();
  for (const hash of hashes) {
    const seeded: SeededSubscriber[] = [];
    for (let index = 0; index < perSite; index += 1) {
      const endpoint = endpointOf(runId, hash, `seed-${index}`);
      const response = await fetch(`${url}/syncSubscriptionAction.php`, {
        method: 'POST',
        headers: HEADERS,
        body: form({ hash, action: 'insert', subscription: subscriptionOf(endpoint), subscriptionId: `seed-${index}` }),
      });
      const reply = (await response.json()) as { status?: string; subscriberId?: string; subscriberSecret?: string; message?: string };
      if (response.status !== 200 || !reply.subscriberId || !reply.subscriberSecret) {
        throw new Error(`seeding ${hash}: HTTP ${response.status} ${JSON.stringify(reply)}`);
      }
      seeded.push({ id: reply.subscriberId, secret: reply.subscriberSecret, endpoint });
    }
    known.set(hash, seeded);
  }
  return known;
}

export interface AcceptedInsert {
  hash: string;
  endpoint: string;
  subscriberId: string;
}

type Kind = 'insert' | 'update' | 'http-sync';

interface Pending {
  kind: Kind;
  hash: string;
  endpoint: string;
}

export interface LoadOptions {
  url: string;
  runId: string;
  known: Map<string, SeededSubscriber[]>;
  connections: number;
  durationSeconds: number;
  /** A request unanswered this long counts as a timeout and its connection is replaced (autocannon's default: 10). */
  timeoutSeconds?: number;
  /**
   * Gives each connection its own loopback source address (127.0.1.x, 127.0.2.x, ...), as distinct visitors
   * have distinct addresses: a provider whose per-IP rate limit cannot be turned off then limits each
   * connection, not the whole load. Linux routes all of 127.0.0.0/8 to the loopback interface.
   */
  distinctSourceAddresses?: boolean;
}

export interface LoadResult {
  connections: number;
  durationSeconds: number;
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Responses by status class: '1xx' ... '5xx'. */
  statusClasses: Record<string, number>;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  insertsSent: number;
  acceptedInserts: AcceptedInsert[];
  /** Requests answered 200 with {status: "failure"}: none is expected, the mix only names known subscribers. */
  refused: { kind: Kind; body: string }[];
  /** A few bodies of 5xx answers, to say why. */
  serverErrors: string[];
}

function sourceAddress(index: number): string {
  return `127.0.${1 + Math.floor(index / 250)}.${1 + (index % 250)}`;
}

/** Makes net.connect (which autocannon calls) bind each new connection to its own loopback address; returns the undo. */
function spreadSourceAddresses(): () => void {
  const original = net.connect;
  let next = 0;
  const patched = ((...args: unknown[]) => {
    if (typeof args[0] === 'number' && (args[1] === undefined || typeof args[1] === 'string')) {
      return original({ port: args[0], host: args[1] as string | undefined, localAddress: sourceAddress(next++) });
    }
    return (original as (...rest: unknown[]) => net.Socket)(...args);
  }) as typeof net.connect;
  net.connect = patched;
  return () => {
    net.connect = original;
  };
}

export async function runSyncLoad(options: LoadOptions): Promise<LoadResult> {
  const hashes = [...options.known.keys()];
  let counter = 0;
  const acceptedInserts: AcceptedInsert[] = [];
  const refused: LoadResult['refused'] = [];
  const serverErrors: string[] = [];
  let insertsSent = 0;

  const nextBody = (context: { pending?: Pending }): string => {
    counter += 1;
    const hash = hashes[counter % hashes.length]!;
    const seeded = options.known.get(hash)!;
    const kind: Kind = (['insert', 'update', 'http-sync'] as const)[counter % 3]!;
    const common = { hash, browserType: 'chrome', origin: LOAD_ORIGIN, userTimezone: 'Europe/Paris', userTimezoneOffset: '-60' };
    if (kind === 'insert') {
      insertsSent += 1;
      const endpoint = endpointOf(options.runId, hash, `n${counter}`);
      context.pending = { kind, hash, endpoint };
      return form({
        ...common,
        action: 'insert',
        subscription: subscriptionOf(endpoint),
        subscriptionId: `n${counter}`,
        userLanguage: 'en-US',
      });
    }
    const subscriber = seeded[counter % seeded.length]!;
    context.pending = { kind, hash, endpoint: subscriber.endpoint };
    if (kind === 'update') {
      return form({
        ...common,
        action: 'update',
        subscriberId: subscriber.id,
        subscriberSecret: subscriber.secret,
        subscription: subscriptionOf(subscriber.endpoint),
        subscriptionId: `u${counter}`,
      });
    }
    return form({
      ...common,
      action: 'http-sync',
      subscriberId: subscriber.id,
      subscriberSecret: subscriber.secret,
      userLanguage: counter % 2 ? 'fr-FR' : 'en-US',
    });
  };

  const onResponse = (status: number, body: string, context: { pending?: Pending }) => {
    const pending = context.pending;
    if (!pending) return;
    context.pending = undefined;
    if (status >= 500) {
      if (serverErrors.length < 5) serverErrors.push(`${status} ${body.slice(0, 300)}`);
      return;
    }
    if (status !== 200) return;
    let reply: { status?: string; subscriberId?: string };
    try {
      reply = JSON.parse(body) as typeof reply;
    } catch {
      refused.push({ kind: pending.kind, body: body.slice(0, 300) });
      return;
    }
    if (reply.status !== 'success' || !reply.subscriberId) {
      refused.push({ kind: pending.kind, body: body.slice(0, 300) });
      return;
    }
    if (pending.kind === 'insert')
      acceptedInserts.push({ hash: pending.hash, endpoint: pending.endpoint, subscriberId: reply.subscriberId });
  };

  const undo = options.distinctSourceAddresses ? spreadSourceAddresses() : () => undefined;
  let result: autocannon.Result;
  try {
    result = await autocannon({
      url: `${options.url}/syncSubscriptionAction.php`,
      connections: options.connections,
      duration: options.durationSeconds,
      timeout: options.timeoutSeconds ?? 10,
      requests: [
        {
          method: 'POST',
          headers: HEADERS,
          setupRequest: (request, context) => ({ ...request, body: nextBody(context as { pending?: Pending }) }),
          onResponse: (status, body, context) => onResponse(status, body, context as { pending?: Pending }),
        },
      ],
    });
  } finally {
    undo();
  }

  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count ?? 0;
  const statusClasses: Record<string, number> = { '1xx': 0, '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 };
  for (const [code, count] of Object.entries(statusCodes)) {
    const key = `${code[0]}xx`;
    statusClasses[key] = (statusClasses[key] ?? 0) + count;
  }
  return {
    connections: options.connections,
    durationSeconds: options.durationSeconds,
    requests: Object.values(statusCodes).reduce((sum, count) => sum + count, 0),
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statusClasses,
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    insertsSent,
    acceptedInserts,
    refused,
    serverErrors,
  };
}

export interface StoredCheck {
  accepted: number;
  /** Accepted inserts found once, under the subscriber id they were answered with, subscribed. */
  stored: number;
  missing: AcceptedInsert[];
  /** Endpoints stored more than once, or two accepted inserts answered with one subscriber id. */
  duplicated: string[];
  /** Stored, but under another subscriber id or not subscribed. */
  wrong: string[];
}

/** Looks up every accepted insert in the database the provider wrote to. */
export async function checkInsertsStored(db: Queryable, inserts: AcceptedInsert[]): Promise<StoredCheck> {
  const rowsByEndpoint = new Map<string, { id: string; site_hash: string; status: string }[]>();
  for (let start = 0; start < inserts.length; start += 5000) {
    const endpoints = inserts.slice(start, start + 5000).map((insert) => insert.endpoint);
    const { rows } = await db.query<{ id: string; site_hash: string; status: string; endpoint: string }>(
      'SELECT id, site_hash, status, endpoint FROM subscribers WHERE endpoint = ANY($1::text[])',
      [endpoints],
    );
    for (const row of rows) rowsByEndpoint.set(row.endpoint, [...(rowsByEndpoint.get(row.endpoint) ?? []), row]);
  }
  const check: StoredCheck = { accepted: inserts.length, stored: 0, missing: [], duplicated: [], wrong: [] };
  const ids = new Map<string, string>();
  for (const insert of inserts) {
    const rows = rowsByEndpoint.get(insert.endpoint) ?? [];
    const earlier = ids.get(insert.subscriberId);
    ids.set(insert.subscriberId, insert.endpoint);
    if (rows.length === 0) check.missing.push(insert);
    else if (rows.length > 1 || earlier) check.duplicated.push(insert.endpoint);
    else if (rows[0]!.id !== insert.subscriberId || rows[0]!.site_hash !== insert.hash || rows[0]!.status !== 'subscribed') {
      check.wrong.push(`${insert.endpoint}: stored as ${JSON.stringify(rows[0])}, answered ${insert.subscriberId}`);
    } else check.stored += 1;
  }
  return check;
}

/** What makes the run a failure; empty when it passed. A 429 is not one (the caller reports it). */
export function loadProblems(result: LoadResult, check: StoredCheck): string[] {
  const problems: string[] = [];
  if (result.statusClasses['5xx']) problems.push(`${result.statusClasses['5xx']} answers 5xx, e.g. ${result.serverErrors.join(' | ')}`);
  if (result.errors) problems.push(`${result.errors} connection errors (${result.timeouts} of them timeouts)`);
  if (result.refused.length) {
    problems.push(
      `${result.refused.length} requests answered 200 {status: "failure"}, e.g. ${result.refused[0]!.kind}: ${result.refused[0]!.body}`,
    );
  }
  const other4xx = Object.entries(result.statusCodes).filter(([code]) => code.startsWith('4') && code !== '429');
  if (other4xx.length) problems.push(`answers ${other4xx.map(([code, count]) => `${code} x${count}`).join(', ')}`);
  if (check.accepted === 0) problems.push('no insert was accepted');
  if (check.missing.length) problems.push(`${check.missing.length} accepted inserts missing, e.g. ${JSON.stringify(check.missing[0])}`);
  if (check.duplicated.length)
    problems.push(`${check.duplicated.length} accepted inserts stored more than once, e.g. ${check.duplicated[0]}`);
  if (check.wrong.length) problems.push(`${check.wrong.length} accepted inserts stored wrongly, e.g. ${check.wrong[0]}`);
  return problems;
}

export function summaryLine(result: LoadResult, check: StoredCheck): string {
  const limited = result.statusCodes['429'] ? `, 429 (rate limited): ${result.statusCodes['429']}` : '';
  return (
    `${result.requests} requests, ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ` +
    `5xx: ${result.statusClasses['5xx']}${limited}, errors: ${result.errors}, accepted inserts stored: ${check.stored}/${check.accepted}`
  );
}
