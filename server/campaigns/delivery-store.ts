// Where a campaign's deliveries and their progress live. The database implementation claims work with
// `FOR UPDATE SKIP LOCKED`, so several processes can run one campaign without sending anything twice.
import type { PushSubscriptionTarget } from '../push/send.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'expired' | 'capped' | 'dropped';
/** What a send attempt ends in (capped and dropped are decided before sending, by the guardrails). */
export type DeliveryResult = 'delivered' | 'failed' | 'expired';

/** Why a delivery failed or expired, as kept with it (server/push/push-failure.ts makes `reason` safe to show). */
export interface DeliveryFailure {
  /** The push service's HTTP status; null when none answered (a network error, a refusal before sending). */
  statusCode: number | null;
  /** At most 256 bytes, no secret: the push service's reason, its status text or the network error's class. */
  reason: string;
  /** The push service's host name. */
  host: string | null;
}

export interface Delivery {
  id: string;
  campaignId: string;
  subscription: PushSubscriptionTarget;
  payload: string;
  /** Attempts already made (0 for a fresh delivery). */
  attempts: number;
  /** Its own Topic header (RFC 8030), instead of the run's. */
  topic?: string;
  /** The id of the key on the site's ring its subscription was made with (server/keys/); signed with it. */
  vapidKeyId?: string;
}

export interface DeliveryStore {
  /**
   * Up to `limit` pending deliveries of the campaign that are due (not rescheduled into the future) and not
   * claimed by another runner; each claimed delivery's attempt count is incremented. A claim outlives the
   * claiming transaction (in SQL: `UPDATE ... SET claimed_at = now(), attempts = attempts + 1 WHERE id IN
   * (SELECT ... FOR UPDATE SKIP LOCKED LIMIT n) RETURNING ...`) and ends with markResult or reschedule; a claim
   * older than a few minutes belongs to a runner that died and may be taken again.
   */
  claimPending(campaignId: string, limit: number): Promise<Delivery[]>;
  /** The result of the last attempt; a failed or expired one with why (its attempts are counted by claims). */
  markResult(deliveryId: string, status: DeliveryResult, failure?: DeliveryFailure): Promise<void>;
  /** Back to pending, not claimable before `notBefore`. */
  reschedule(deliveryId: string, notBefore: Date): Promise<void>;
  /**
   * While results are kept back because the database is away (they are written when it returns), the promise
   * of their write: the runner starts no new push until then. Undefined otherwise.
   */
  resultsHeldBack?(): Promise<void> | undefined;
}

interface StoredDelivery extends Delivery {
  status: DeliveryStatus;
  notBefore: number;
  claimed: boolean;
  failure?: DeliveryFailure;
}

/** The store kept in memory: for tests, and the reference semantics of the database store. */
export class InMemoryDeliveryStore implements DeliveryStore {
  private readonly rows = new Map<string, StoredDelivery>();

  constructor(private readonly now: () => number = Date.now) {}

  add(delivery: Omit<Delivery, 'attempts'>): void {
    this.rows.set(delivery.id, { ...delivery, attempts: 0, status: 'pending', notBefore: 0, claimed: false });
  }

  async claimPending(campaignId: string, limit: number): Promise<Delivery[]> {
    const now = this.now();
    const claimed: Delivery[] = [];
    for (const row of this.rows.values()) {
      if (claimed.length >= limit) break;
      if (row.campaignId !== campaignId || row.status !== 'pending' || row.claimed || row.notBefore > now) continue;
      row.claimed = true;
      row.attempts += 1;
      claimed.push({ id: row.id, campaignId, subscription: row.subscription, payload: row.payload, attempts: row.attempts });
    }
    return claimed;
  }

  async markResult(deliveryId: string, status: DeliveryResult, failure?: DeliveryFailure): Promise<void> {
    const row = this.require(deliveryId);
    row.status = status;
    row.claimed = false;
    if (failure !== undefined) row.failure = failure;
  }

  async reschedule(deliveryId: string, notBefore: Date): Promise<void> {
    const row = this.require(deliveryId);
    row.claimed = false;
    row.notBefore = notBefore.getTime();
  }

  /** Releases claims of a runner that died, as a database transaction rollback would. */
  releaseClaims(): void {
    for (const row of this.rows.values()) row.claimed = false;
  }

  /** Earliest time a pending, unclaimed delivery of the campaign becomes due; undefined when none is left. */
  nextDue(campaignId: string): number | undefined {
    let next: number | undefined;
    for (const row of this.rows.values()) {
      if (row.campaignId === campaignId && row.status === 'pending') next = Math.min(next ?? Infinity, row.notBefore);
    }
    return next;
  }

  statusOf(deliveryId: string): { status: DeliveryStatus; attempts: number; failure?: DeliveryFailure } {
    const row = this.require(deliveryId);
    return { status: row.status, attempts: row.attempts, ...(row.failure === undefined ? {} : { failure: row.failure }) };
  }

  private require(deliveryId: string): StoredDelivery {
    const row = this.rows.get(deliveryId);
    if (!row) throw new Error(`no delivery with id "${deliveryId}"`);
    return row;
  }
}
