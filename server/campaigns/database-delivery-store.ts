// The DeliveryStore (delivery-store.ts) on the provider's database. Work is claimed with FOR UPDATE SKIP LOCKED
// and a claimed_at stamp, so several `serve` or `send` processes can run one campaign and none sends a
// delivery another has claimed. A live runner renews the stamp of the claims it holds every quarter of the lease;
// a claim not renewed for the lease (its runner died: kill -9, crash, machine lost) is taken again (20 s, or
// PUSHKIT_CLAIM_LEASE_SECONDS: claim-lease.ts). The embedded database, which one process at a time may open, drops
// every claim when it is opened.
//
// The guarantee, under any crash: every delivery is sent at least once. A delivery is sent a second time
// only when its runner died after the push service had received the request and before the answer was
// recorded: at most one extra copy per request in flight at the crash (at most the runner's concurrency),
// sent with the same Topic header, so a push service still holding the first copy replaces it. Claimed
// deliveries whose request had not started are sent once, by the next runner. A database that is away for
// less than the lease (a restart) while the runner lives costs nothing: the answers are kept in memory and
// written when it is back.
import type { Database, Queryable } from '../db/database.ts';
import { isServerError } from '../errors.ts';
import type { Delivery, DeliveryFailure, DeliveryResult, DeliveryStore } from './delivery-store.ts';
import type { CampaignAction } from '../../contract/campaign-input.ts';
import { textsFor, type LanguageTexts } from '../../contract/languages.ts';
import { declarativePayloadText, type LandingOrigins } from './declarative-payload.ts';
import { systemClock, type Clock } from '../clock.ts';
import { CAP_WINDOW_MS, guardrailVerdict, type CampaignGuardrails } from './guardrails.ts';
import { deliveryResultsStatement } from '../webhooks/index.ts';
import { claimSlots } from './throttle.ts';
import { claimLeaseSeconds, claimRenewMs, unclaimed } from './claim-lease.ts';
/** How often results are written again while the database is away (for at most a lease). */
const RESULT_RETRY_MS = 500;
/** A campaign's message (CampaignContent) from campaigns c and its variant's row campaign_variants v, if any. */
const MESSAGE_COLUMNS = `coalesce(v.title, c.title) AS title, coalesce(v.body, c.body) AS body, coalesce(v.url, c.url) AS url,
  coalesce(v.icon, c.icon) AS icon, coalesce(v.image, c.image) AS image, c.actions,
  coalesce(v.texts, c.texts) AS texts, c.automation, c.app_badge`;
/** What a claim returns of each claimed delivery (a ClaimedRow but `recent`), from deliveries d, subscribers s, campaigns c and campaign_variants v. */
const CLAIMED_COLUMNS = `d.id, d.campaign_id, d.attempts, s.endpoint, s.p256dh, s.auth, ${MESSAGE_COLUMNS},
  s.language, s.secret_hash, s.timezone, s.timezone_offset, c.ttl, s.vapid_key_id`;
/**
 * What the claim of a campaign without guardrails returns of each delivery: its own columns and its subscriber's, and
 * which variant's message it gets. The message itself is the same for every delivery of a (campaign, variant) and is
 * read once (CampaignContent): returned per row, it was 13 of 22 columns, decoded for every delivery.
 */
const DELIVERY_COLUMNS = `d.id, d.campaign_id, d.attempts, s.endpoint, s.p256dh, s.auth, s.language, s.secret_hash, s.vapid_key_id,
  coalesce(d.variant, c.winner_variant) AS variant`;

/** A campaign's (or one of its variants') message, as a claimed row would carry it; it never changes once created. */
type CampaignContent = Pick<ClaimedRow, 'title' | 'body' | 'url' | 'icon' | 'image' | 'actions' | 'texts' | 'automation' | 'app_badge'>;
/** Messages kept per store; past it the cache starts afresh. */
const MAX_CONTENTS = 1000;

const contentKey = (row: DeliveryRow) => `${row.campaign_id}:${row.variant ?? ''}`;

type DeliveryRow = Pick<
  ClaimedRow,
  'id' | 'campaign_id' | 'attempts' | 'endpoint' | 'p256dh' | 'auth' | 'language' | 'secret_hash' | 'vapid_key_id' | 'due'
> & {
  variant: number | null;
};

/** The part of a result batch's statement that writes the deliveries' results. $1..$5: ids, statuses, reasons, status codes, hosts. */
const MARK_RESULTS = `UPDATE deliveries d SET status = m.status, last_error = m.reason, status_code = m.status_code,
         failure_host = m.host, claimed_at = NULL, updated_at = now()
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::text[]) AS m (id, status, reason, status_code, host)
       WHERE d.id = m.id`;

/**
 * A batch of results in one statement (prepared: a send runs it thousands of times): the deliveries' results, for
 * an expired one its subscriber and an `expired` event (the owner's subscriber health counts expiries per day from
 * them), and the webhooks' outbox row of the batch (notification.delivered, .failed, subscriber.expired) when an
 * endpoint takes them. $1..$5 as MARK_RESULTS.
 */
const WRITE_RESULTS = `WITH marked AS (
       ${MARK_RESULTS}
       RETURNING d.subscriber_id, d.status
     ), expired AS (
       UPDATE subscribers s SET status = 'expired', updated_at = now()
       FROM marked WHERE s.id = marked.subscriber_id AND marked.status = 'expired' AND s.status <> 'expired'
       RETURNING s.id, s.site_hash
     ), outbox AS (
       ${deliveryResultsStatement('$1::bigint[]')}
     )
     INSERT INTO events (site_hash, subscriber_id, kind) SELECT site_hash, id, 'expired' FROM expired`;

/**
 * The same for a batch with no expired result (nearly every one): its parts for expiries write nothing, but each
 * still cost PostgreSQL the opening of `subscribers` and `events` with their indexes on every statement (PostgreSQL's
 * CPU per result written 15-30% less without them at 18 a batch, the size a 5,000 campaign's writes have).
 */
const WRITE_RESULTS_NONE_EXPIRED = `WITH marked AS (
       ${MARK_RESULTS}
     )
     ${deliveryResultsStatement('$1::bigint[]')}`;

export interface ClaimedRow {
  id: string;
  campaign_id: string;
  attempts: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  title: string;
  body: string;
  url: string | null;
  icon: string | null;
  image?: string | null;
  actions?: CampaignAction[] | null;
  /** Texts per language (the variant's, else the campaign's); null: everyone gets title and body. */
  texts?: LanguageTexts | null;
  /** The subscriber's stored language ("de-DE"), which picks among texts. */
  language?: string | null;
  /** An automated message's kind (its UTM campaign is automation-<kind>); null for a campaign. */
  automation?: string | null;
  /** An automated message's notification tag (a newer cart reminder replaces an older one on screen). */
  tag?: string | null;
  app_badge: number | null;
  secret_hash: string | null;
  timezone: string | null;
  timezone_offset: number | null;
  ttl: number;
  recent: number;
  /** The subscriber's key on the site's ring (NULL: the current key). */
  vapid_key_id?: string | null;
  /** When it was due (the claim at once returns it: its next claim starts after it). */
  due?: Date;
}

/** A delivery's place in the pending index's order: its due time, then its id (a Date: the milliseconds, rounded down). */
interface ClaimMark {
  due: Date;
  id: string;
}

/** The keys of a site's ring that can sign: only deliveries of subscribers on these are claimed. */
export interface SignableKeys {
  /** The current key's id, which a NULL subscribers.vapid_key_id stands for. */
  currentId: string;
  ids: readonly string[];
}

/**
 * SQL true when subscriber `s` is on one of the keys that can sign (or cannot be sent to anyway), with the
 * current key's id and the signable ids as parameters $currentParam and $idsParam.
 */
export function onSignableKey(currentParam: number, idsParam: number): string {
  // Spelled out rather than `coalesce(s.vapid_key_id, $current) = ANY($ids)`, whose selectivity PostgreSQL cannot
  // estimate (it guesses 0.5%, so it hashed every subscriber and sorted the campaign's pending deliveries for each
  // claim: 2.6 s per claim at 100,000). The NULL test has statistics, and `$current = ANY($ids)` is folded when
  // the statement is planned with its values.
  const ids = `$${idsParam}::text[]`;
  return `(s.status <> 'subscribed' OR s.endpoint IS NULL OR (s.vapid_key_id IS NULL AND $${currentParam}::text = ANY(${ids}))
    OR (s.vapid_key_id IS NOT NULL AND s.vapid_key_id = ANY(${ids})))`;
}

/** The Delivery of a claimed row, with the payload built for it. */
export function claimedDelivery(
  row: Pick<ClaimedRow, 'id' | 'campaign_id' | 'attempts' | 'endpoint' | 'p256dh' | 'auth' | 'vapid_key_id'>,
  payload: string,
): Delivery {
  return {
    id: String(row.id),
    campaignId: String(row.campaign_id),
    attempts: row.attempts,
    subscription: { endpoint: row.endpoint, keys: { p256dh: row.p256dh, auth: row.auth } },
    payload,
    ...(row.vapid_key_id ? { vapidKeyId: row.vapid_key_id } : {}),
  };
}

/**
 * A claimed delivery's push message, campaign or automated: declarative, with the delivery's click token on
 * every page a click opens and in the data the worker reports with (server/campaigns/declarative-payload.ts).
 */
export function deliveryPayload(
  row: Pick<ClaimedRow, 'id' | 'campaign_id' | 'title' | 'body' | 'url' | 'icon' | 'image' | 'actions' | 'tag' | 'secret_hash'> &
    Partial<Pick<ClaimedRow, 'app_badge' | 'texts' | 'language' | 'automation'>>,
  site: LandingOrigins,
): string {
  // the subscriber's language's texts: exact tag, else its primary subtag, else the default title and body
  const { title, body } = textsFor(row, row.texts, row.language);
  return declarativePayloadText(
    {
      campaignId: String(row.campaign_id),
      title,
      body,
      ...(row.automation ? { utmCampaign: `automation-${row.automation}` } : {}),
      url: row.url,
      icon: row.icon,
      image: row.image,
      actions: row.actions,
      appBadge: row.app_badge,
      tag: row.tag,
    },
    { deliveryId: String(row.id), secretHash: row.secret_hash },
    site,
  );
}

/** What the guardrails read of a claimed delivery: its subscriber's zone, its TTL, the subscriber's recent deliveries. */
export type GuardedRow = Pick<ClaimedRow, 'id' | 'timezone' | 'timezone_offset' | 'ttl' | 'recent'>;

/** What the store needs of the site: where clicks may land, and its guardrails. */
export type DeliveryStoreSite = LandingOrigins & { campaignGuardrails?: CampaignGuardrails };

export class DatabaseDeliveryStore implements DeliveryStore {
  /** Deliveries this store claimed and has not yet marked or rescheduled. */
  private readonly held = new Set<string>();
  private renewTimer: NodeJS.Timeout | undefined;

  /** `site`: where the payloads' clicks may land (the site's origin and notificationClickOrigins). */
  constructor(
    private readonly db: Database,
    protected readonly site: DeliveryStoreSite,
    /** Whose time says a scheduled delivery has come due. */
    private readonly clock: Clock = systemClock,
    /** Claim only deliveries whose subscriber's key can sign (the rest wait for theirs); default: all. */
    protected readonly signable?: SignableKeys,
    /** Seconds a claim not renewed lasts (claim-lease.ts); default the process's, PUSHKIT_CLAIM_LEASE_SECONDS or 20. */
    protected readonly leaseSeconds: number = claimLeaseSeconds(),
  ) {}

  private hold(ids: string[]): void {
    for (const id of ids) this.held.add(id);
    if (this.held.size === 0 || this.renewTimer) return;
    // A failed renewal (database away) is retried on the next tick; the lease is several ticks long.
    this.renewTimer = setInterval(() => void this.renewClaims().catch(() => undefined), claimRenewMs(this.leaseSeconds));
    this.renewTimer.unref();
  }

  /**
   * Stamps the claims this store holds afresh (every quarter of the lease). Rows locked by a result write are skipped
   * (their claim ends with it): a renewal that waited for them while holding others could deadlock with that write
   * (seen at 1,000,000: `deadlock detected` ended the run).
   */
  async renewClaims(): Promise<void> {
    if (this.held.size === 0) return;
    await this.db.query(
      `UPDATE deliveries SET claimed_at = now() WHERE id IN (
         SELECT id FROM deliveries WHERE id = ANY($1::bigint[]) AND status = 'pending' AND claimed_at IS NOT NULL
         FOR UPDATE SKIP LOCKED)`,
      [[...this.held]],
    );
  }

  private release(id: string): void {
    this.held.delete(id);
    if (this.held.size === 0 && this.renewTimer) {
      clearInterval(this.renewTimer);
      this.renewTimer = undefined;
    }
  }

  /** Stops renewing the claims still held (a run that failed): they lapse after the lease and are taken again. */
  abandonClaims(): void {
    this.held.clear();
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = undefined;
  }

  async claimPending(campaignId: string, limit: number): Promise<Delivery[]> {
    const started = Date.now();
    for (;;) {
      const claimed = await this.claim(campaignId, limit);
      this.hold(claimed.map((delivery) => delivery.id));
      // A throttled campaign with no free slot waits for its next one here, so the runner goes on at its rate;
      // after `throttle.sliceMs` (the provider's queue) it hands back, and other campaigns get their turn.
      const wait = this.throttle.waitMs;
      if (claimed.length > 0 || wait === 0 || this.throttle.signal?.aborted) return claimed;
      if (Date.now() - started + wait > this.throttle.sliceMs) {
        this.throttle.yielded = true;
        return claimed;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /**
   * A throttled campaign's pace (server/campaigns/throttle.ts): `waitMs` until its next free slot after the last
   * claim (0: not throttled, or a slot was free), how long claimPending waits for slots before it hands back
   * (`yielded`), and the run's stop signal.
   */
  readonly throttle: { waitMs: number; sliceMs: number; yielded: boolean; signal?: AbortSignal } = {
    waitMs: 0,
    sliceMs: Infinity,
    yielded: false,
  };

  /** Campaigns this store has claimed from, and whether each has a send rate (set when it is created, never after). */
  private readonly throttled = new Map<string, boolean>();

  /** Claims up to `limit` due deliveries (a subclass claims another set: server/automations/automation-messages.ts). */
  protected async claim(campaignId: string, limit: number): Promise<Delivery[]> {
    this.throttle.waitMs = 0;
    let throttled = this.throttled.get(campaignId);
    if (throttled === undefined) {
      const { rows } = await this.db.query<{ throttled: boolean }>(
        'SELECT throttle_per_minute IS NOT NULL AS throttled FROM campaigns WHERE id = $1',
        [campaignId],
      );
      throttled = rows[0]?.throttled ?? false;
      this.throttled.set(campaignId, throttled);
    }
    const guardrails = this.site.campaignGuardrails;
    if (!throttled && !guardrails?.quietHours && !guardrails?.frequencyCap) return this.claimAtOnce(campaignId, limit);
    return this.db.transaction(async (tx) => {
      const now = this.clock();
      const cap = this.site.campaignGuardrails?.frequencyCap;
      // a throttled campaign: as many as its rate has free slots for now, across every provider on the database
      const slots = await claimSlots(tx, campaignId, limit);
      if (slots.free === 0) {
        this.throttle.waitMs = slots.waitMs;
        return [];
      }
      const pick = this.pickDue(campaignId, slots.free, now);
      const { rows: picked } = await tx.query<{ id: string; gone: boolean; erased: boolean }>(pick.text, pick.values);
      if (picked.length === 0) return [];
      await slots.take(picked.length);
      const erased = picked.filter((row) => row.erased).map((row) => row.id);
      if (erased.length) await tx.query('DELETE FROM deliveries WHERE id = ANY($1::bigint[])', [erased]);
      const gone = picked.filter((row) => row.gone && !row.erased).map((row) => row.id);
      // A subscriber that lost its subscription since the campaign was created cannot be sent to.
      if (gone.length) {
        await tx.query(
          `UPDATE deliveries SET status = 'expired', last_error = 'subscription gone before sending', updated_at = now()
           WHERE id = ANY($1::bigint[])`,
          [gone],
        );
      }
      const sendable = picked.filter((row) => !row.gone).map((row) => row.id);
      const { rows: claimed } = await tx.query<ClaimedRow>(
        `UPDATE deliveries d SET claimed_at = now(), attempts = d.attempts + 1
         FROM subscribers s, campaigns c
         LEFT JOIN campaign_variants v ON v.campaign_id = c.id
         WHERE d.id = ANY($1::bigint[]) AND s.id = d.subscriber_id AND c.id = d.campaign_id
           AND (v.variant IS NULL OR v.variant = coalesce(d.variant, c.winner_variant))
         RETURNING ${CLAIMED_COLUMNS},
           ${
             cap
               ? `(SELECT count(*)::int FROM deliveries x WHERE x.subscriber_id = d.subscriber_id AND x.status = 'delivered' AND x.updated_at > $2)`
               : '0'
           } AS recent`,
        [sendable, ...(cap ? [new Date(now - CAP_WINDOW_MS[cap.per]).toISOString()] : [])],
      );
      const rows = await this.applyGuardrails(tx, claimed, now);
      return rows.map((row) => claimedDelivery(row, deliveryPayload(row, this.site)));
    });
  }

  /**
   * The campaign's next `limit` due deliveries, in the order of an index on (campaign, due time, id), locked for
   * this claim (a claim reads its batch, not every pending delivery of the campaign), each with whether its
   * subscriber can no longer be sent to, and whether it is gone altogether (erased while the campaign's rows were
   * written: its rows are deleted, as when it is erased later; migration 54); both claims below use it. Never one
   * this store holds: a claim of its own that lapsed (a renewal late on a busy machine) is still its to send, and
   * taking it again would send it twice.
   */
  private pickDue(campaignId: string, limit: number, now: number, after?: ClaimMark): { text: string; values: unknown[] } {
    const mark = 6 + (this.signable ? 2 : 0);
    return {
      text: `SELECT d.id, (s.endpoint IS NULL OR s.p256dh IS NULL OR s.auth IS NULL OR s.status <> 'subscribed') AS gone,
           s.id IS NULL AS erased
         FROM deliveries d LEFT JOIN subscribers s ON s.id = d.subscriber_id
         WHERE d.campaign_id = $1 AND d.status = 'pending' AND d.next_attempt_at <= $4
           AND ${unclaimed('$3')}
           -- an A/B test's rest waits for its winner
           AND (d.variant IS NOT NULL OR NOT EXISTS (
             SELECT 1 FROM campaigns t WHERE t.id = $1 AND t.winner_at IS NOT NULL AND t.winner_variant IS NULL))
           AND NOT (d.id = ANY($5::bigint[]))
           ${this.signable ? `AND ${onSignableKey(6, 7)}` : ''}
           ${after ? `AND (d.next_attempt_at, d.id) > ($${mark}::timestamptz, $${mark + 1}::bigint)` : ''}
         ORDER BY d.next_attempt_at, d.id LIMIT $2 FOR UPDATE OF d SKIP LOCKED`,
      values: [
        campaignId,
        limit,
        this.leaseSeconds,
        new Date(now).toISOString(),
        [...this.held],
        ...(this.signable ? [this.signable.currentId, this.signable.ids] : []),
        ...(after ? [after.due.toISOString(), after.id] : []),
      ],
    };
  }

  /** Per campaign, the last delivery in the pending index's order this store claimed at once. */
  private readonly claimedUpTo = new Map<string, ClaimMark>();

  /**
   * The claim of a campaign without a send rate on a site without guardrails, as one statement (no transaction,
   * one round trip): the same rows picked, gone subscribers' deliveries expired and the rest claimed, as the
   * transaction above does in three.
   */
  private async claimAtOnce(campaignId: string, limit: number): Promise<Delivery[]> {
    // The index's entries of deliveries already sent stay until autovacuum removes them, and a claim walking from the
    // campaign's first entry stepped over all of them (18-35 ms of a claim of 400 at 100,000 once 40% had gone). A
    // claim starts after the last one this store claimed; only when that finds too few does it walk from the start,
    // for what lies before: a dead runner's lapsed claims, rows another runner held or had locked.
    const after = this.claimedUpTo.get(campaignId);
    const rows = await this.claimRows(campaignId, limit, after);
    if (after && rows.length < limit) rows.push(...(await this.claimRows(campaignId, limit - rows.length)));
    let last = after;
    for (const row of rows) {
      const due = new Date(row.due!);
      if (!last || due.getTime() > last.due.getTime() || (due.getTime() === last.due.getTime() && BigInt(row.id) > BigInt(last.id))) {
        last = { due, id: String(row.id) };
      }
    }
    if (last) this.claimedUpTo.set(campaignId, last);
    for (const row of rows) if (!this.contents.has(contentKey(row))) await this.readContent(row);
    const deliveries: Delivery[] = [];
    for (const row of rows) {
      const content = this.contents.get(contentKey(row));
      // the campaign deleted since the claim (its deliveries with it): nothing to send
      if (!content) {
        this.release(String(row.id));
        continue;
      }
      // spelled out: a spread of the content and then the row's fields took V8's slow path (3x the payload's time)
      const { title, body, url, icon, image, actions, texts, automation, app_badge } = content;
      const payload = deliveryPayload(
        {
          id: row.id,
          campaign_id: row.campaign_id,
          language: row.language,
          secret_hash: row.secret_hash,
          title,
          body,
          url,
          icon,
          image,
          actions,
          texts,
          automation,
          app_badge,
        },
        this.site,
      );
      deliveries.push(claimedDelivery(row, payload));
    }
    return deliveries;
  }

  /** Each (campaign, variant)'s message, read once. */
  private readonly contents = new Map<string, CampaignContent | undefined>();

  private async readContent(row: DeliveryRow): Promise<void> {
    const { rows } = await this.db.query<CampaignContent>(
      `SELECT ${MESSAGE_COLUMNS}
       FROM campaigns c LEFT JOIN campaign_variants v ON v.campaign_id = c.id AND v.variant = $2
       WHERE c.id = $1`,
      [row.campaign_id, row.variant],
    );
    if (this.contents.size >= MAX_CONTENTS) this.contents.clear();
    this.contents.set(contentKey(row), rows[0]);
  }

  private async claimRows(campaignId: string, limit: number, after?: ClaimMark): Promise<DeliveryRow[]> {
    const pick = this.pickDue(campaignId, limit, this.clock(), after);
    const { rows } = await this.db.query<DeliveryRow>(
      `WITH picked AS (${pick.text}
       ), expired AS (
         -- a subscriber that lost its subscription since the campaign was created cannot be sent to
         UPDATE deliveries d SET status = 'expired', last_error = 'subscription gone before sending', updated_at = now()
         WHERE d.id = ANY (ARRAY(SELECT id FROM picked WHERE gone AND NOT erased))
       ), erased AS (
         DELETE FROM deliveries d WHERE d.id = ANY (ARRAY(SELECT id FROM picked WHERE erased))
       )
       -- the picked rows by their ids, so that each is a primary-key probe (a join to the picked rows let PostgreSQL
       -- scan the whole table while it has fewer than ~100,000 rows: 36-54 ms per claim at 60,000, bench/README.md);
       -- only columns no index holds change (not updated_at), so each new version is a HOT update (migration 37)
       UPDATE deliveries d SET claimed_at = now(), attempts = d.attempts + 1
       FROM subscribers s, campaigns c
       WHERE d.id = ANY (ARRAY(SELECT id FROM picked WHERE NOT gone)) AND s.id = d.subscriber_id AND c.id = d.campaign_id
       RETURNING ${DELIVERY_COLUMNS}, d.next_attempt_at AS due`,
      pick.values,
    );
    return rows;
  }

  /**
   * The site's guardrails, per claimed delivery: one in the subscriber's quiet hours waits for their end (the
   * attempt it was claimed with not counted), one whose TTL runs out first is dropped, a capped subscriber's is
   * skipped; the rest are returned for sending.
   */
  protected async applyGuardrails<Row extends GuardedRow>(tx: Queryable, rows: Row[], now: number): Promise<Row[]> {
    const guardrails = this.site.campaignGuardrails;
    if (!guardrails?.quietHours && !guardrails?.frequencyCap) return rows;
    const send: Row[] = [];
    const waiting: { id: string; until: string }[] = [];
    const skipped: { id: string; status: 'capped' | 'dropped'; reason: string }[] = [];
    for (const row of rows) {
      const verdict = guardrailVerdict(guardrails, {
        now,
        zone: { timezone: row.timezone, timezoneOffset: row.timezone_offset },
        ttlSeconds: row.ttl,
        recentDeliveries: Number(row.recent),
      });
      if (verdict.action === 'send') send.push(row);
      else if (verdict.action === 'wait') waiting.push({ id: String(row.id), until: new Date(verdict.until).toISOString() });
      else skipped.push({ id: String(row.id), status: verdict.action === 'cap' ? 'capped' : 'dropped', reason: verdict.reason });
    }
    if (waiting.length) {
      await tx.query(
        `UPDATE deliveries d SET next_attempt_at = w.until, claimed_at = NULL, attempts = d.attempts - 1
         FROM unnest($1::bigint[], $2::timestamptz[]) AS w (id, until) WHERE d.id = w.id`,
        [waiting.map((entry) => entry.id), waiting.map((entry) => entry.until)],
      );
    }
    if (skipped.length) {
      await tx.query(
        `UPDATE deliveries d SET status = k.status, last_error = k.reason, claimed_at = NULL, updated_at = now()
         FROM unnest($1::bigint[], $2::text[], $3::text[]) AS k (id, status, reason) WHERE d.id = k.id`,
        [skipped.map((entry) => entry.id), skipped.map((entry) => entry.status), skipped.map((entry) => entry.reason)],
      );
    }
    return send;
  }

  /**
   * Results are written in batches: the ones that come in while a write is under way go together in the next
   * statement (one round trip for many answers). A result is recorded before its promise resolves.
   */
  markResult(deliveryId: string, status: DeliveryResult, failure?: DeliveryFailure): Promise<void> {
    this.release(deliveryId);
    return new Promise((resolve, reject) => {
      this.results.push({ id: deliveryId, status, failure, resolve, reject });
      this.writing ??= this.writeResults().finally(() => {
        this.writing = undefined;
      });
    });
  }

  private results: { id: string; status: DeliveryResult; failure?: DeliveryFailure; resolve(): void; reject(error: unknown): void }[] = [];
  private writing: Promise<void> | undefined;
  /** Results are being kept back: the database is away. */
  private heldBack = false;

  resultsHeldBack(): Promise<void> | undefined {
    return this.heldBack ? this.writing : undefined;
  }

  private async writeResults(): Promise<void> {
    let unavailableSince: number | undefined;
    for (;;) {
      // One turn of the event loop first: the workers the last write woke send and answer meanwhile (a push whose
      // answer has arrived, a sender that answers at once), and their results join this statement. Without it a
      // write started with the first result alone and the next took the rest: statements alternated between one
      // result and the other `concurrency - 1`, twice the commits (each a WAL flush) for the same results.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.results.length === 0) return;
      const batch = this.results.splice(0);
      try {
        await this.db.query(
          batch.some((result) => result.status === 'expired') ? WRITE_RESULTS : WRITE_RESULTS_NONE_EXPIRED,
          [
            batch.map((result) => result.id),
            batch.map((result) => result.status),
            batch.map((result) => result.failure?.reason ?? null),
            batch.map((result) => result.failure?.statusCode ?? null),
            batch.map((result) => result.failure?.host ?? null),
          ],
          { prepare: true },
        );
        for (const result of batch) result.resolve();
        unavailableSince = undefined;
        this.heldBack = false;
      } catch (error) {
        // The push services have answered: while the database is briefly away (a restart) the answers are
        // kept and written when it is back, rather than lost, which would send those messages again.
        unavailableSince ??= Date.now();
        if (isServerError(error, 'E_DATABASE_UNAVAILABLE') && Date.now() - unavailableSince < this.leaseSeconds * 1000) {
          this.results.unshift(...batch);
          this.heldBack = true;
          await new Promise((resolve) => setTimeout(resolve, RESULT_RETRY_MS));
          continue;
        }
        this.heldBack = false;
        for (const result of batch) result.reject(error);
      }
    }
  }

  async reschedule(deliveryId: string, notBefore: Date): Promise<void> {
    this.release(deliveryId);
    await this.db.query(`UPDATE deliveries SET next_attempt_at = $2, claimed_at = NULL, updated_at = now() WHERE id = $1`, [
      deliveryId,
      notBefore.toISOString(),
    ]);
  }
}
