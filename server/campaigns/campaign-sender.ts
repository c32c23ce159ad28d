// Sends one campaign from the provider's database with the site's VAPID key pair: used by `push-kit send`
// and by the provider for campaigns created through the owner API. Progress lives in the deliveries table,
// so an interrupted campaign resumes where it stopped, in this process or another. A run ends when nothing
// is left pending: deliveries claimed by a runner that died are taken once their claims lapse.
import type { Database } from '../db/database.ts';
import { DatabaseDeliveryStore, onSignableKey, type SignableKeys } from './database-delivery-store.ts';
import { runCampaign, type RunCampaignOptions, type RunCounts } from './campaign-runner.ts';
import type { HostedSite } from '../sites.ts';
import type { VapidKeyPair } from '../push/vapid-keys.ts';
import type { Urgency } from '../../contract/urgency.ts';
import type { CampaignCounts } from '../../contract/owner-api.ts';
import type { PushServiceAllowlist } from '../push/push-services.ts';
import { vapidSubjectFor } from '../../config/vapid-subject.ts';
import { sharedEncryptionPool } from '../push/encryption-pool.ts';
import { systemClock, type Clock } from '../clock.ts';
import { decideWinner } from './ab-tests.ts';
import { deliveryCountsSql, foldDeliveryCounts } from './delivery-counts.ts';
import { vapidKeyPairProblem } from '../push/vapid.ts';
import { campaignCompleted } from '../webhooks/index.ts';
import { currentVapidKeyId, type SigningKeys } from '../keys/index.ts';

export interface SendCampaignOptions {
  concurrency?: number;
  onProgress?(counts: RunCounts): void;
  signal?: AbortSignal;
  /** Extra trusted CA certificates for push services (tests use a local one). */
  ca?: string | string[];
  /** Where pushes may go (server/push/push-services.ts); default: PUSHKIT_PUSH_SERVICES, else the known ones. */
  pushServices?: PushServiceAllowlist;
  /** Offer HTTP/2 to push services (server/push/send.ts); default: off. */
  http2?: boolean;
  /** Whose time says a scheduled delivery has come due (tests move one by hand). */
  clock?: Clock;
  /** Attempts per delivery and the first retry delay (server/campaigns/campaign-runner.ts); tests shorten them. */
  retry?: Pick<RunCampaignOptions, 'maxAttempts' | 'backoffMs'>;
  /** The site's key pair cannot sign, so the campaign waits for it (status waiting_for_key): why. */
  onWaitingForKey?(problem: string): void;
  /** A throttled campaign hands back after this long waiting for its slots (the queue's turn), calling onThrottleYield. */
  throttleSliceMs?: number;
  onThrottleYield?(): void;
}

/** RFC 8292's contact: the site's vapidSubject, else its https origin, else a mailto: address at its host. */
export function vapidSubjectOf(site: Pick<HostedSite, 'config'>): string {
  return vapidSubjectFor(site.config);
}

/** Where a campaign's deliveries stand: the delivery-side figures of its CampaignCounts. */
export type CampaignProgress = Pick<CampaignCounts, 'recipients' | 'pending' | 'delivered' | 'failed' | 'expired' | 'capped' | 'dropped'>;

export async function campaignProgress(db: Database, campaignId: string): Promise<CampaignProgress> {
  // the folded counts (server/campaigns/delivery-counts.ts): an index range, not the campaign's delivery rows
  const { rows } = await db.query<Record<keyof CampaignProgress, string>>(`SELECT n.* FROM ${deliveryCountsSql('$1')} n`, [campaignId]);
  const row = rows[0]!;
  return {
    recipients: Number(row.recipients),
    pending: Number(row.pending),
    delivered: Number(row.delivered),
    failed: Number(row.failed),
    expired: Number(row.expired),
    capped: Number(row.capped),
    dropped: Number(row.dropped),
  };
}

/**
 * The ring a send signs with: a site's ring (server/keys/ signingKeys), or one pair, which then signs the
 * deliveries of the site's current key (subscribers on a legacy key wait for theirs).
 */
function ringOf(site: HostedSite, keys: VapidKeyPair | SigningKeys): SigningKeys {
  if ('pairs' in keys) return keys;
  const currentId = currentVapidKeyId(site);
  const problem = vapidKeyPairProblem(keys);
  return problem === undefined
    ? { currentId, pairs: new Map([[currentId, keys]]), problems: new Map() }
    : { currentId, pairs: new Map(), problems: new Map([[currentId, problem]]) };
}

/** Why the keys of the deliveries left pending cannot sign, one key after the other. */
async function waitingKeysProblem(db: Database, campaignId: string, ring: SigningKeys): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string; count: string }>(
    `SELECT coalesce(s.vapid_key_id, $2) AS id, count(*) AS count
     FROM deliveries d JOIN subscribers s ON s.id = d.subscriber_id
     WHERE d.campaign_id = $1 AND d.status = 'pending' AND NOT ${onSignableKey(2, 3)}
     GROUP BY 1 ORDER BY 1`,
    [campaignId, ring.currentId, [...ring.pairs.keys()]],
  );
  if (rows.length === 0) return undefined;
  return rows
    .map((row) => {
      const which = row.id === ring.currentId ? 'the current key' : `legacy key ${row.id}`;
      const count = Number(row.count);
      return `${which} (${count} subscriber${count === 1 ? '' : 's'}): ${ring.problems.get(row.id) ?? 'not on the key ring'}`;
    })
    .join('; ');
}

export async function sendCampaign(
  db: Database,
  site: HostedSite,
  campaignId: string,
  keys: VapidKeyPair | SigningKeys,
  options: SendCampaignOptions = {},
): Promise<RunCounts> {
  const ring = ringOf(site, keys);
  const signable = { currentId: ring.currentId, ids: [...ring.pairs.keys()] };
  const current = ring.pairs.get(ring.currentId) ?? ring.pairs.values().next().value;
  const { rows } = await db.query<{ ttl: number; urgency: Urgency; status: string; topic: string | null }>(
    'SELECT ttl, urgency, status, topic FROM campaigns WHERE id = $1 AND site_hash = $2',
    [campaignId, site.hash],
  );
  const campaign = rows[0];
  if (!campaign) throw new Error(`no campaign ${campaignId} on site ${site.name}`);
  const clock = options.clock ?? systemClock;
  // An A/B test whose time has come gets its winner before its rest is claimed.
  await decideWinner(db, campaignId, clock());
  // A scheduled campaign whose time has not come is left alone (the provider's scheduler starts it then).
  if (
    campaign.status === 'cancelled' ||
    (campaign.status === 'scheduled' && (await nextDue(db, campaignId, clock, signable)) === 'later')
  ) {
    return { sent: 0, delivered: 0, failed: 0, expired: 0 };
  }
  // A push signed with a key that cannot sign would be refused (a signature the public key does not verify)
  // and marked failed for good: deliveries whose subscriber's key cannot sign (broken, or its file missing from
  // the ring) wait instead, untouched, and the campaign with them (waiting_for_key) once the rest is sent, until
  // a run finds the key fixed. A campaign's audience may span keys: each delivery is signed with its own.
  const waitForKey = async (): Promise<boolean> => {
    const problem = await waitingKeysProblem(db, campaignId, ring);
    if (problem === undefined) return false;
    await db.query(`UPDATE campaigns SET status = 'waiting_for_key' WHERE id = $1 AND status IN ('pending', 'scheduled', 'sending')`, [
      campaignId,
    ]);
    options.onWaitingForKey?.(problem);
    return true;
  };
  if (current === undefined) {
    await waitForKey();
    return { sent: 0, delivered: 0, failed: 0, expired: 0 };
  }
  // A campaign whose every pending delivery waits for a key stays waiting_for_key, not sending for a moment at
  // each look of the scheduler.
  if ((await nextDue(db, campaignId, clock, signable)) === 'none' && (await waitForKey())) {
    return { sent: 0, delivered: 0, failed: 0, expired: 0 };
  }
  await db.query(`UPDATE campaigns SET status = 'sending' WHERE id = $1 AND status IN ('pending', 'scheduled', 'waiting_for_key')`, [
    campaignId,
  ]);
  const store = new DatabaseDeliveryStore(db, site.config, clock, signable);
  store.throttle.signal = options.signal;
  if (options.throttleSliceMs !== undefined) store.throttle.sliceMs = options.throttleSliceMs;
  const total: RunCounts = { sent: 0, delivered: 0, failed: 0, expired: 0 };
  const add = (counts: RunCounts): RunCounts => ({
    sent: total.sent + counts.sent,
    delivered: total.delivered + counts.delivered,
    failed: total.failed + counts.failed,
    expired: total.expired + counts.expired,
  });
  try {
    for (;;) {
      const counts = await runCampaign(store, campaignId, {
        vapid: current,
        vapidKeys: ring.pairs,
        subject: vapidSubjectOf(site),
        ttl: campaign.ttl,
        urgency: campaign.urgency,
        // A retried request replaces an undelivered copy at the push service instead of adding a second one; a
        // campaign's own topic also replaces an undelivered older campaign of that topic.
        topic: campaign.topic ?? `campaign-${campaignId}`.slice(0, 32),
        concurrency: options.concurrency,
        ...options.retry,
        onProgress: options.onProgress && ((progress) => options.onProgress!(add(progress))),
        signal: options.signal,
        ca: options.ca,
        pushServices: options.pushServices,
        http2: options.http2,
        // RFC 8291's per-message key agreement is most of a send's CPU: it runs on the other cores.
        encryptor: sharedEncryptionPool(),
      });
      Object.assign(total, add(counts));
      if ((await campaignProgress(db, campaignId)).pending === 0) {
        await db.query(
          `UPDATE campaigns SET status = 'done', completed_at = now() WHERE id = $1 AND status IN ('pending', 'scheduled', 'sending')`,
          [campaignId],
        );
        await campaignCompleted(db, campaignId);
        await foldDeliveryCounts(db, campaignId);
        return total;
      }
      if (options.signal?.aborted) return total;
      if (store.throttle.yielded) {
        options.onThrottleYield?.();
        return total;
      }
      // An A/B test's winner clock starts once its test share has gone: the rest becomes due from then.
      await decideWinner(db, campaignId, clock());
      // What is left is claimed by another runner, or by one that died and whose claims will lapse, or is due
      // soon: wait for the first of these, then take what has become free. What is due later (a schedule) is
      // the provider's scheduler's to start when its time comes; what waits for its key waits.
      const next = await nextDue(db, campaignId, clock, signable);
      if (next === 'none') await waitForKey();
      if (next === 'later' || next === 'none') return total;
      await sleep(next, options.signal);
      await decideWinner(db, campaignId, clock());
    }
  } finally {
    // A run that failed (database away) leaves claims behind: they lapse, and the next run takes them.
    store.abandonClaims();
  }
}

/** How often a runner waiting for other runners' claims looks again (they may finish any moment). */
const RECHECK_MS = 1000;

/** A delivery due further off than this is left to the scheduler rather than waited for. */
const HANDOFF_MS = 5000;

/**
 * When the campaign's run should look again: milliseconds until a pending delivery may become claimable (a
 * claim held elsewhere, one that lapses, one due soon), 'later' when every one left is due past HANDOFF_MS
 * (by `clock`), 'none' when nothing is pending (a cancelled campaign).
 */
async function nextDue(db: Database, campaignId: string, clock: Clock, signable?: SignableKeys): Promise<number | 'later' | 'none'> {
  const { text, values } = nextDueQuery(campaignId, signable);
  const { rows } = await db.query<{ due: number | null; claimed: boolean | null }>(text, values);
  const { due, claimed } = rows[0] ?? { due: null, claimed: null };
  if (claimed) return RECHECK_MS;
  if (due === null) return 'none';
  const wait = Number(due) - clock();
  if (wait > HANDOFF_MS) return 'later';
  return Math.min(Math.max(wait, 50), RECHECK_MS);
}

/**
 * nextDue's question: the earliest due time of the campaign's unclaimed pending deliveries (ms), and whether any
 * pending one is claimed, both among those whose subscriber's key can sign. Asked as the first row in the pending
 * index's order and as an EXISTS, each a walk of that index with a probe of the subscriber per row, which stops at
 * the first that answers. As an aggregate over the join, with statistics from when the campaign was all pending,
 * PostgreSQL hashed every subscriber against a scan of every delivery: 0.2-1.5 s at 100,000 subscribers, at the end
 * of each run of a campaign (bench/README.md, issue 34).
 */
export function nextDueQuery(campaignId: string, signable?: SignableKeys): { text: string; values: unknown[] } {
  const signs = signable ? `AND EXISTS (SELECT 1 FROM subscribers s WHERE s.id = d.subscriber_id AND ${onSignableKey(2, 3)})` : '';
  return {
    text: `SELECT (SELECT extract(epoch FROM d.next_attempt_at) * 1000 FROM deliveries d
               WHERE d.campaign_id = $1 AND d.status = 'pending' AND d.claimed_at IS NULL ${signs}
               ORDER BY d.next_attempt_at LIMIT 1) AS due,
             EXISTS (SELECT 1 FROM deliveries d
               WHERE d.campaign_id = $1 AND d.status = 'pending' AND d.claimed_at IS NOT NULL ${signs}) AS claimed`,
    values: signable ? [campaignId, signable.currentId, signable.ids] : [campaignId],
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
