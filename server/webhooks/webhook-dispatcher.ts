// Sends the queued webhook events (message-store.ts): a pass claims due messages in batches, posts each one
// signed (webhook-signing.ts) over a keep-alive connection pool with bounded concurrency, and writes the batch's
// results in one statement. A non-2xx answer, no answer, or a refused address is retried with exponential backoff
// (WEBHOOK_RETRY_DELAYS_SECONDS, about 27 hours in all); an event still failing then is marked failed and its
// endpoint disabled with the reason, for the owner to see, fix and enable again. Passes run every `pollMs` and on
// demand (runDue); a process's passes never overlap, and the claims keep several processes from sending one
// message at once. Due times follow the provider's clock (tests move it); signatures carry the real time.
import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import type { Database } from '../db/database.ts';
import { isServerError } from '../errors.ts';
import { systemClock, type Clock } from '../clock.ts';
import { undici } from '../undici.ts';
import { signedHeaders } from './webhook-signing.ts';
import {
  addressRuleOf,
  guardedLookup,
  literalAddressProblem,
  webhookUrlProblem,
  type AddressRule,
  type WebhookUrlPolicy,
} from './webhook-urls.ts';
import { claimMessages, disableEndpoint, expandOutbox, recordAttempts, type AttemptResult, type ClaimedMessage } from './message-store.ts';

/** Seconds before each retry: 30 s, tripled per attempt; 9 attempts span 27.3 hours. */
export const WEBHOOK_RETRY_DELAYS_SECONDS: readonly number[] = Array.from({ length: 8 }, (_, index) => 30 * 3 ** index);
/** Attempts of one event before it fails and its endpoint is disabled. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_SECONDS.length + 1;
/** The most of an answer's body the log keeps. */
export const WEBHOOK_RESPONSE_EXCERPT_BYTES = 256;
export const WEBHOOK_POLL_MS = 1000;
const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_CONCURRENCY = 32;
/**
 * The share of the time webhooks take while this process sends a campaign: after each batch the dispatcher waits
 * (1 / share - 1) times as long as the batch took, and catches up once the campaign is sent. The campaign's pushes
 * and the webhooks share one main thread (and, embedded, one database): at full pace 20,000 webhooks made a
 * 20,000-subscriber campaign 3 times slower (bench/webhook-overhead.ts).
 */
export const WEBHOOK_BUSY_SHARE = 0.05;
/** Days the log keeps an event once it is delivered or failed. */
export const WEBHOOK_LOG_DAYS = 30;
const PRUNE_EVERY_MS = 3_600_000;

export interface WebhookDispatcherOptions {
  policy: WebhookUrlPolicy;
  clock?: Clock;
  /** Extra trusted CA certificates (a test's receiver). */
  ca?: string | string[];
  /** Milliseconds between passes; default WEBHOOK_POLL_MS; 0: only those runDue asks for. */
  pollMs?: number;
  /** Requests in flight at most; default 32. */
  concurrency?: number;
  /** Milliseconds an endpoint has to answer; default 15 000. */
  timeoutMs?: number;
  /** Whether this process is sending a campaign now: webhooks then go at WEBHOOK_BUSY_SHARE of the time. */
  busy?: () => boolean;
  log?: (line: string) => void;
}

/** The first `max` bytes of a text, not cutting a character in two. */
export function excerpt(bytes: Buffer, max = WEBHOOK_RESPONSE_EXCERPT_BYTES): string {
  if (bytes.length <= max) return bytes.toString('utf8');
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

function errorText(error: unknown): string {
  const seen: string[] = [];
  for (let cause = error; cause instanceof Error && seen.length < 4; cause = cause.cause) {
    if (!seen.includes(cause.message)) seen.push(cause.message);
  }
  return seen.join(': ') || String(error);
}

export class WebhookDispatcher {
  private pass: Promise<number> = Promise.resolve(0);
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly agents = new Map<string, Agent>();
  private readonly clock: Clock;
  private wake: (() => void) | undefined;
  private prunedAt = 0;

  constructor(
    private readonly db: Database,
    private readonly options: WebhookDispatcherOptions,
  ) {
    this.clock = options.clock ?? systemClock;
  }

  /** Starts the passes; on the embedded database (one process at a time) the claims of a process gone are dropped first. */
  async start(): Promise<void> {
    if (this.db.kind === 'embedded') {
      await this.db.query(`UPDATE webhook_messages SET claimed_at = NULL WHERE status = 'pending' AND claimed_at IS NOT NULL`);
    }
    const pollMs = this.options.pollMs ?? WEBHOOK_POLL_MS;
    if (pollMs <= 0) return;
    const tick = () => {
      void this.runDue().finally(() => {
        if (!this.closed) this.timer = setTimeout(tick, pollMs).unref();
      });
    };
    this.timer = setTimeout(tick, pollMs).unref();
  }

  /** Sends what is due now (after the pass under way, if any); resolves with how many attempts this pass made. */
  runDue(): Promise<number> {
    const next = this.pass.catch(() => 0).then(() => this.runPass());
    this.pass = next;
    return next;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    await this.pass.catch(() => undefined);
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((agent) => agent.close()));
  }

  private log(line: string): void {
    (this.options.log ?? ((text: string) => console.log(text)))(line);
  }

  /** Waits `ms`, or less when the dispatcher closes. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  /** Deletes delivered and failed events older than WEBHOOK_LOG_DAYS (their attempts with them), oldest first. */
  private async prune(): Promise<void> {
    if (Date.now() - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = Date.now();
    for (let deleted = 1000; deleted === 1000 && !this.closed;) {
      const { rows } = await this.db.query(
        `DELETE FROM webhook_messages WHERE id IN (
           SELECT id FROM webhook_messages WHERE status <> 'pending' AND updated_at < now() - make_interval(days => $1) ORDER BY id LIMIT 1000)
         RETURNING id`,
        [WEBHOOK_LOG_DAYS],
      );
      deleted = rows.length;
    }
  }

  private async runPass(): Promise<number> {
    let attempts = 0;
    const concurrency = this.options.concurrency ?? DEFAULT_CONCURRENCY;
    try {
      await this.prune();
      while (!this.closed) {
        const started = performance.now();
        const busy = this.options.busy?.() ?? false;
        // delivery results first (an outbox row is a batch of ~200); none while a campaign is sent, whose results
        // they mostly are: turning them into events is most of the webhooks' database work
        const expanded = busy ? 0 : await expandOutbox(this.db, 10);
        const claimed = await claimMessages(this.db, this.clock(), concurrency * 4);
        if (claimed.length === 0 && expanded === 0) break;
        const results = await this.sendAll(claimed, concurrency);
        await recordAttempts(this.db, results);
        for (const result of results) {
          if (result.outcome !== 'failed') continue;
          const message = claimed.find((candidate) => candidate.id === result.id)!;
          const hours = (WEBHOOK_RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0) / 3600).toFixed(1);
          const reason = `${message.type} event ${message.messageId} failed ${message.attempts} attempts over ${hours} h; last: ${result.response || `HTTP ${result.statusCode}`}`;
          await disableEndpoint(this.db, message.endpointId, reason);
          this.log(`webhook endpoint ${message.endpointId} disabled: ${reason}`);
        }
        attempts += results.length;
        if (this.options.busy?.()) await this.pause((performance.now() - started) * (1 / WEBHOOK_BUSY_SHARE - 1));
      }
    } catch (error) {
      if (!isServerError(error, 'E_DATABASE_UNAVAILABLE')) this.log(`webhooks: ${(error as Error).message}`);
    }
    return attempts;
  }

  private async sendAll(claimed: ClaimedMessage[], concurrency: number): Promise<AttemptResult[]> {
    const results: AttemptResult[] = new Array(claimed.length);
    let next = 0;
    const worker = async () => {
      for (let index = next++; index < claimed.length; index = next++) results[index] = await this.attempt(claimed[index]!);
    };
    // A batch runs to its end even when the dispatcher is closing: each attempt's answer is written.
    await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, worker));
    return results;
  }

  private agentFor(rule: AddressRule): Agent {
    const ca = this.options.ca;
    const id = `${rule}\n${ca === undefined ? '' : [ca].flat().join('\n')}`;
    let agent = this.agents.get(id);
    if (!agent) {
      agent = new (undici().Agent)({
        connections: 64,
        keepAliveTimeout: 30_000,
        connect: { ...(ca === undefined ? {} : { ca }), ...(rule === 'any' ? {} : { lookup: guardedLookup(rule) }) },
      });
      this.agents.set(id, agent);
    }
    return agent;
  }

  /** One attempt of one message; never throws. */
  private async attempt(message: ClaimedMessage): Promise<AttemptResult> {
    const started = performance.now();
    const settle = (ok: boolean, statusCode: number | null, response: string): AttemptResult => {
      const latencyMs = performance.now() - started;
      if (ok) return { id: message.id, outcome: 'delivered', statusCode, latencyMs, response };
      if (message.attempts >= WEBHOOK_MAX_ATTEMPTS) return { id: message.id, outcome: 'failed', statusCode, latencyMs, response };
      const delay = WEBHOOK_RETRY_DELAYS_SECONDS[message.attempts - 1]! * 1000;
      return { id: message.id, outcome: 'retrying', statusCode, latencyMs, response, nextAttemptAt: this.clock() + delay };
    };
    const { policy } = this.options;
    // The provider's rules now, not when the endpoint was added: a provider restarted without a flag stops it.
    const problem = webhookUrlProblem(message.url, policy);
    if (problem) return settle(false, null, `refused: ${problem}`);
    const url = new URL(message.url);
    const rule = addressRuleOf(url, policy);
    const literal = literalAddressProblem(url, rule);
    if (literal) return settle(false, null, `refused: ${literal}`);
    const timeout = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    try {
      const response = await undici().request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'push-kit-webhooks',
          ...signedHeaders(message.secrets, message.messageId, Math.floor(Date.now() / 1000), message.payload),
        },
        body: message.payload,
        dispatcher: this.agentFor(rule),
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      const chunks: Buffer[] = [];
      let length = 0;
      for await (const chunk of response.body) {
        if (length > WEBHOOK_RESPONSE_EXCERPT_BYTES) continue;
        chunks.push(chunk as Buffer);
        length += (chunk as Buffer).length;
      }
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return settle(ok, response.statusCode, excerpt(Buffer.concat(chunks)));
    } catch (error) {
      return settle(false, null, excerpt(Buffer.from(errorText(error))));
    }
  }
}
