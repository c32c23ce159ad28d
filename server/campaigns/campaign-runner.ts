// Sends a campaign's pending deliveries with bounded concurrency. All progress is in the store: a delivery
// is claimed before it is sent and marked right after, so a restarted run picks up only what is left.
import type { Delivery, DeliveryFailure, DeliveryStore } from './delivery-store.js';
import { isServerError } from '../errors.ts';
import { sendPush, type PushResult, type SendPushOptions } from '../push/send.js';
import type { VapidKeyPair } from '../push/vapid-keys.ts';
import { errorReason } from '../push/push-failure.ts';

/** What one run of the sender did (the campaign's own figures are contract/owner-api.ts's CampaignCounts). */
export interface RunCounts {
  /** Push requests made, retries included. */
  sent: number;
  delivered: number;
  failed: number;
  expired: number;
}

export interface RunCampaignOptions extends SendPushOptions {
  /** Requests in flight at most; default 100. */
  concurrency?: number;
  /** Attempts per delivery before it is marked failed; default 5. */
  maxAttempts?: number;
  /** First retry delay when the push service gives no Retry-After; doubled per attempt. Default 1000 ms. */
  backoffMs?: number;
  onProgress?(counts: RunCounts): void;
  /** Stops claiming new work; requests in flight finish and are recorded. */
  signal?: AbortSignal;
  /** The sender; sendPush unless a test or benchmark substitutes one. */
  send?: (delivery: Delivery, options: SendPushOptions) => Promise<PushResult>;
  /**
   * The site's key ring by key id (server/keys/): a delivery with a vapidKeyId is signed with that key, one
   * without it with `vapid` (the current key). Without a ring every delivery is signed with `vapid`.
   */
  vapidKeys?: ReadonlyMap<string, VapidKeyPair>;
}

/**
 * A claim takes this many times the concurrency, and the next one starts when the queue is down to REFILL_FACTOR
 * times it: the workers have two rounds of deliveries in hand while a claim is under way. With a
 * claim of twice the concurrency started at one concurrency left, a claim (slower than a result write: it returns
 * the rows and plans afresh) came back after the queue had run dry, and every worker waited for it, once per claim.
 * Deliveries claimed and not yet sent are never sent twice (a runner that dies leaves them to its lease), so holding
 * more of them costs only their wait for the lease after a crash.
 */
const CLAIM_FACTOR = 4;
const REFILL_FACTOR = 2;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function isRequestError(error: unknown): boolean {
  // Payload and option errors would fail again on every retry; network errors may not.
  return (
    !isServerError(error, 'E_PAYLOAD_TOO_LARGE') &&
    !(error instanceof TypeError) &&
    !(error instanceof Error && /^(push |subscription key|VAPID)/.test(error.message))
  );
}

/** What is kept of a failed or expired push: the status (none for no answer), the reason, the push service's host. */
function failureOf(delivery: Delivery, result: Exclude<PushResult, { outcome: 'delivered' }>): DeliveryFailure {
  let host: string | null = null;
  try {
    host = new URL(delivery.subscription.endpoint).hostname;
  } catch {
    // an endpoint that is not a URL has no host to name
  }
  return { statusCode: result.statusCode > 0 ? result.statusCode : null, reason: result.reason, host };
}

export async function runCampaign(store: DeliveryStore, campaignId: string, options: RunCampaignOptions): Promise<RunCounts> {
  const concurrency = options.concurrency ?? 100;
  const maxAttempts = options.maxAttempts ?? 5;
  const backoffMs = options.backoffMs ?? 1000;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a whole number >= 1, got ${concurrency}`);
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new Error(`maxAttempts must be a whole number >= 1, got ${maxAttempts}`);
  const send =
    options.send ??
    ((delivery: Delivery, sendOptions: SendPushOptions) =>
      sendPush(delivery.subscription, delivery.payload, delivery.topic ? { ...sendOptions, topic: delivery.topic } : sendOptions));
  // One options object per key of the ring, made once: a campaign's audience may span keys.
  const optionsByKey = new Map([...(options.vapidKeys ?? [])].map(([id, vapid]) => [id, { ...options, vapid }]));
  const optionsFor = (delivery: Delivery): SendPushOptions => {
    if (delivery.vapidKeyId === undefined || !options.vapidKeys) return options;
    const keyed = optionsByKey.get(delivery.vapidKeyId);
    // Claims skip subscribers whose key is not on the ring; signing with another key would be refused anyway.
    if (!keyed) throw new Error(`VAPID key ${delivery.vapidKeyId} of this subscription is not on the site's key ring`);
    return keyed;
  };
  const counts: RunCounts = { sent: 0, delivered: 0, failed: 0, expired: 0 };
  const report = () => options.onProgress?.({ ...counts });

  const queue: Delivery[] = [];
  /** When each delivery this run rescheduled becomes due again. */
  const retryDue = new Map<string, number>();
  let refilling: Promise<void> | undefined;
  let exhausted = false;

  const refill = async (): Promise<void> => {
    while (!options.signal?.aborted) {
      const claimed = await store.claimPending(campaignId, concurrency * CLAIM_FACTOR);
      if (claimed.length > 0) {
        for (const delivery of claimed) retryDue.delete(delivery.id);
        queue.push(...claimed);
        return;
      }
      if (retryDue.size === 0) {
        exhausted = true;
        return;
      }
      const wait = Math.min(...retryDue.values()) - Date.now();
      await sleep(Math.max(10, wait));
      // Another runner may have taken a rescheduled delivery; forget those long past due.
      for (const [id, due] of retryDue) if (due < Date.now() - 60_000) retryDue.delete(id);
    }
  };

  const startRefill = (): Promise<void> =>
    (refilling ??= refill().finally(() => {
      refilling = undefined;
    }));

  const next = async (): Promise<Delivery | undefined> => {
    // The next batch is claimed while this one is sent (at REFILL_FACTOR times `concurrency` left): no request waits for a claim.
    // Nobody awaits a claim ahead, so its failure (the database away) is caught here, or it would end the
    // provider's process as an unhandled rejection. A later claim is made afresh; one a worker waits for (the
    // queue empty) ends the run with its error, and the provider runs the campaign again, as before.
    if (queue.length <= concurrency * REFILL_FACTOR && !exhausted && !options.signal?.aborted) startRefill().catch(() => undefined);
    while (queue.length === 0) {
      if (exhausted || options.signal?.aborted) return undefined;
      await startRefill();
    }
    return queue.shift();
  };

  const deliver = async (delivery: Delivery): Promise<void> => {
    let result: PushResult;
    sending += 1;
    try {
      counts.sent += 1;
      result = await send(delivery, optionsFor(delivery));
    } catch (error) {
      // no answer: a network error's class (`network: connection refused`), else what went wrong, without secrets
      const reason = errorReason(error, { endpoint: delivery.subscription.endpoint });
      const detail = reason;
      result = isRequestError(error)
        ? { outcome: 'retry', statusCode: 0, detail, reason }
        : { outcome: 'failed', statusCode: 0, detail, reason };
    } finally {
      sending -= 1;
    }
    if (result.outcome === 'delivered') {
      record(store.markResult(delivery.id, 'delivered'), 'delivered');
    } else if (result.outcome === 'expired') {
      record(store.markResult(delivery.id, 'expired', failureOf(delivery, result)), 'expired');
    } else if (result.outcome === 'retry' && delivery.attempts < maxAttempts) {
      const delay = result.retryAfterMs ?? backoffMs * 2 ** (delivery.attempts - 1);
      const due = Date.now() + delay;
      retryDue.set(delivery.id, due);
      exhausted = false;
      await store.reschedule(delivery.id, new Date(due));
      report();
    } else {
      record(store.markResult(delivery.id, 'failed', failureOf(delivery, result)), 'failed');
    }
  };

  // A worker does not wait for its result to be written before it takes the next delivery: the store writes the
  // results that come in meanwhile together, and waiting made every message pay a database round trip. Pushes in
  // flight and results not yet written are at most `concurrency` together, so a process killed mid-campaign leaves
  // at most that many messages that the next one sends again (docs/scaling.md). A result is counted once written,
  // and the run ends (and returns) only when every result is. While the database is away no new push starts (the
  // store keeps the answers until it is back); a write that fails for good stops the run with its error, as before.
  let sending = 0;
  /** Results not yet written, and the workers waiting for one of them to be (each written result wakes one). */
  let unwritten = 0;
  const waiting: Array<() => void> = [];
  let writeFailure: { error: unknown } | undefined;
  const written = (): void => {
    unwritten -= 1;
    if (unwritten === 0) for (const wake of waiting.splice(0)) wake();
    else waiting.shift()?.();
  };
  const record = (write: Promise<void>, outcome: 'delivered' | 'failed' | 'expired'): void => {
    unwritten += 1;
    write.then(
      () => {
        counts[outcome] += 1;
        report();
        written();
      },
      (error: unknown) => {
        writeFailure ??= { error };
        written();
      },
    );
  };

  const worker = async (): Promise<void> => {
    while (!writeFailure) {
      // the database away: no new push until the answers kept meanwhile are written (or the run ends with the error)
      await store.resultsHeldBack?.()?.catch(() => undefined);
      // this worker sends nothing now, so the others' pushes are below `concurrency` and a write is outstanding
      // (a queue of waiters, not a race over every unwritten result: that cost each waiting worker a reaction on
      // each of up to `concurrency` promises per written result)
      while (unwritten > 0 && unwritten + sending >= concurrency) await new Promise<void>((wake) => waiting.push(wake));
      const delivery = await next();
      if (!delivery) return;
      await deliver(delivery);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  while (unwritten > 0) await new Promise<void>((wake) => waiting.push(wake));
  if (writeFailure) throw writeFailure.error;
  // Claimed but never started because the run was stopped: give them back untouched.
  for (const delivery of queue.splice(0)) await store.reschedule(delivery.id, new Date(0));
  return counts;
}
