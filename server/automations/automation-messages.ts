// Automated messages in the database: each is a campaign to one subscriber (campaigns.automation names its
// kind) with one delivery whose next_attempt_at is the time it is due, in the provider's clock (server/clock.ts).
// Due work therefore survives restarts, is claimed like any campaign's deliveries (FOR UPDATE SKIP LOCKED and a
// lease, by the DatabaseDeliveryStore this extends) and sent by the campaign runner, so several provider
// processes on one PostgreSQL never send one twice. A message not yet claimed can be withdrawn (an order
// cancels the cart reminder, a pause drops what is due); one claimed is the sender's.
import type { Database, Queryable } from '../db/database.ts';
import {
  claimedDelivery,
  DatabaseDeliveryStore,
  deliveryPayload,
  type ClaimedRow,
  type DeliveryStoreSite,
  type GuardedRow,
  CAP_WINDOW_MS,
  type Delivery,
  onSignableKey,
  type SignableKeys,
  automationFailures,
  unclaimed,
} from '../campaigns/index.ts';
import type { HostedSite } from '../sites.ts';
import type { Clock } from '../clock.ts';
import type { EffectiveSettings } from './automation-settings.ts';
import { CAMPAIGN_BODY_MAX_LENGTH, CAMPAIGN_TITLE_MAX_LENGTH, DEFAULT_TTL_SECONDS } from '../../contract/campaign-limits.ts';
import { CART_REMINDER_TAG, CART_REMINDER_TOPIC, type AutomationKind, type AutomationStats } from '../../contract/automations.ts';
import { DEFAULT_URGENCY } from '../../contract/urgency.ts';
import type { LanguageTexts } from '../../contract/languages.ts';
import { automationAudienceGate } from '../audiences/index.ts';

const MINUTE_MS = 60_000;
/** A second message of an automation about the same key (product change, win-back) to one subscriber is a no-op. */
export const ONCE_PER_KEY = `ON CONFLICT (site_hash, automation, subscriber_id, automation_key) WHERE automation_key IS NOT NULL DO NOTHING`;
/**
 * The clicks an automation's messages still hold (site $1, automation $2): each message's subscriber and when they
 * clicked it (a message goes to one subscriber, who reports its click once: migration 45).
 */
const MESSAGE_CLICKS = `clicks AS (
       SELECT c.subscriber_id, e.created_at AS clicked_at
       FROM campaigns c JOIN events e ON e.campaign_id = c.id AND e.kind = 'clicked' AND e.subscriber_id = c.subscriber_id
       WHERE c.site_hash = $1 AND c.automation = $2
     )`;

/** The product of a cart event (spec section 3), as push.js reports it. */
export interface CartProduct {
  pId?: string;
  pName: string;
  /** Already divided by 100. */
  price?: number;
  pUrl?: string;
  pImgUrl?: string;
}

export interface Message {
  kind: AutomationKind;
  /** What the message is about: a subscriber gets one message of the automation per key, ever. */
  key?: string;
  title: string;
  body: string;
  url: string | null;
  image?: string | null;
  topic?: string;
  tag?: string;
  /** Texts per language, placeholders filled in like title and body. */
  texts?: LanguageTexts;
}

/** Inserts the message's campaign and its delivery, due at `due`; `once` makes a second one for the subscriber a no-op. */
export async function insertMessage(
  tx: Queryable,
  site: Pick<HostedSite, 'hash' | 'config'>,
  subscriberId: string,
  message: Message,
  due: number,
): Promise<boolean> {
  const once =
    message.kind === 'welcome'
      ? `ON CONFLICT (site_hash, subscriber_id) WHERE automation = 'welcome' DO NOTHING`
      : message.key !== undefined
        ? ONCE_PER_KEY
        : '';
  // an automation limited to an audience (docs/audiences.md) sends only to its subscribers
  const audience = await automationAudienceGate(tx, site.hash, message.kind, '$7', 16);
  const { rows } = await tx.query(
    `WITH created AS (
       INSERT INTO campaigns (site_hash, title, body, url, icon, image, subscriber_id, ttl, urgency, automation, topic, tag, texts, automation_key)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $14, $15
       WHERE EXISTS (SELECT 1 FROM subscribers WHERE site_hash = $1 AND id = $7 AND status = 'subscribed') AND ${audience.sql}
       ${once}
       RETURNING id
     )
     INSERT INTO deliveries (campaign_id, subscriber_id, next_attempt_at) SELECT id, $7, $13 FROM created RETURNING 1`,
    [
      site.hash,
      message.title.slice(0, CAMPAIGN_TITLE_MAX_LENGTH),
      message.body.slice(0, CAMPAIGN_BODY_MAX_LENGTH),
      message.url,
      site.config.style.iconUrl ?? null,
      message.image ?? null,
      subscriberId,
      DEFAULT_TTL_SECONDS,
      DEFAULT_URGENCY,
      message.kind,
      message.topic ?? null,
      message.tag ?? null,
      new Date(due).toISOString(),
      storedTexts(message.texts),
      message.key ?? null,
      ...audience.params,
    ],
  );
  return rows.length === 1;
}

/** A message's texts per language as stored (each cut to the campaign limits), or null for none. */
export function storedTexts(texts: LanguageTexts | undefined): string | null {
  if (!texts || !Object.keys(texts).length) return null;
  return JSON.stringify(
    Object.fromEntries(
      Object.entries(texts).map(([language, text]) => [
        language,
        { title: text.title.slice(0, CAMPAIGN_TITLE_MAX_LENGTH), body: text.body.slice(0, CAMPAIGN_BODY_MAX_LENGTH) },
      ]),
    ),
  );
}

/** The welcome message of a new subscriber, once ever; false when it had one already (or is not subscribed). */
export async function scheduleWelcome(
  db: Queryable,
  site: Pick<HostedSite, 'hash' | 'config'>,
  subscriberId: string,
  settings: EffectiveSettings,
  now: number,
): Promise<boolean> {
  const message: Message = { kind: 'welcome', title: settings.title, body: settings.body, texts: settings.texts, url: settings.url };
  return insertMessage(db, site, subscriberId, message, now + settings.delayMinutes * MINUTE_MS);
}

/** `{product}` and `{price}` of the cart texts. */
function withProduct(template: string, product: CartProduct): string {
  const price = product.price === undefined ? '' : product.price.toFixed(2);
  return template.replaceAll('{product}', product.pName).replaceAll('{price}', price);
}

/** The product's page when it is on the site (a relative pUrl is), else the automation's url. */
export function productPage(site: Pick<HostedSite, 'config'>, product: CartProduct, fallback: string | null): string | null {
  if (!product.pUrl) return fallback;
  try {
    const url = new URL(product.pUrl, site.config.origin);
    return url.origin === new URL(site.config.origin).origin ? url.href : fallback;
  } catch {
    return fallback;
  }
}

/**
 * Withdraws the subscriber's cart reminders no sender holds. `FOR UPDATE` (not SKIP LOCKED) waits for a claim
 * under way and then sees its stamp: a reminder being sent is not withdrawn half-way.
 */
export async function cancelCartReminders(db: Queryable, siteHash: string, subscriberId: string): Promise<number> {
  const { rows } = await db.query(
    `DELETE FROM campaigns WHERE id IN (
       SELECT c.id FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id
       WHERE c.site_hash = $1 AND c.automation = 'abandonedCart' AND c.subscriber_id = $2 AND c.status <> 'done'
         AND d.status = 'pending' AND ${unclaimed()}
       FOR UPDATE OF d
     ) RETURNING 1`,
    [siteHash, subscriberId],
  );
  return rows.length;
}

/** One reminder per subscriber: a newer add-to-cart replaces the one still waiting, naming the newer product. */
export async function scheduleCartReminder(
  db: Database,
  site: Pick<HostedSite, 'hash' | 'config'>,
  subscriberId: string,
  product: CartProduct,
  settings: EffectiveSettings,
  now: number,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    // Two add-to-carts of one subscriber at once (two tabs, two processes) leave one reminder.
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`cart ${site.hash} ${subscriberId}`]);
    await cancelCartReminders(tx, site.hash, subscriberId);
    const message: Message = {
      kind: 'abandonedCart',
      title: withProduct(settings.title, product),
      body: withProduct(settings.body, product),
      texts: Object.fromEntries(
        Object.entries(settings.texts).map(([language, texts]) => [
          language,
          { title: withProduct(texts.title, product), body: withProduct(texts.body, product) },
        ]),
      ),
      url: productPage(site, product, settings.url),
      image: product.pImgUrl ?? null,
      topic: CART_REMINDER_TOPIC,
      tag: CART_REMINDER_TAG,
    };
    return insertMessage(tx, site, subscriberId, message, now + settings.delayMinutes * MINUTE_MS);
  });
}

/**
 * Withdraws the automation's unclaimed messages due by `dueBy` (all of them when absent): a paused automation
 * sends nothing, and a message that came due while it was paused is not sent late when it resumes.
 */
export async function dropPendingMessages(db: Queryable, siteHash: string, kind: AutomationKind, dueBy?: number): Promise<number> {
  const { rows } = await db.query(
    `DELETE FROM campaigns WHERE id IN (
       SELECT c.id FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id
       WHERE c.site_hash = $1 AND c.automation = $2 AND c.status <> 'done' AND d.status = 'pending' AND ${unclaimed()}
         AND ($3::timestamptz IS NULL OR d.next_attempt_at <= $3)
       FOR UPDATE OF d SKIP LOCKED
     ) RETURNING 1`,
    [siteHash, kind, dueBy === undefined ? null : new Date(dueBy).toISOString()],
  );
  return rows.length;
}

/** Marks the automation's messages whose delivery is settled as done, so the due-message index stays small. */
export async function settleMessages(db: Queryable, siteHash: string, kind: AutomationKind): Promise<void> {
  await db.query(
    `UPDATE campaigns c SET status = 'done', completed_at = now()
     WHERE c.site_hash = $1 AND c.automation = $2 AND c.status <> 'done'
       AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'pending')`,
    [siteHash, kind],
  );
}

/** A claimed automated message: a delivery's row (without the campaign-only fields) and its Topic. */
type ClaimedMessage = GuardedRow &
  Pick<
    ClaimedRow,
    | 'campaign_id'
    | 'attempts'
    | 'endpoint'
    | 'p256dh'
    | 'auth'
    | 'title'
    | 'body'
    | 'url'
    | 'icon'
    | 'image'
    | 'tag'
    | 'secret_hash'
    | 'vapid_key_id'
    | 'texts'
    | 'language'
    | 'automation'
  > & {
    topic: string | null;
  };

/**
 * The due messages of one automation of one site, claimed like a campaign's deliveries. Due means
 * next_attempt_at has passed in the provider's clock; a retry (attempts > 0) is rescheduled by the runner in
 * real time and is due by the database's clock. A message whose subscriber is gone by then is withdrawn.
 */
export class AutomationDeliveryStore extends DatabaseDeliveryStore {
  constructor(
    private readonly database: Database,
    private readonly siteHash: string,
    private readonly kind: AutomationKind,
    private readonly dueClock: Clock,
    /** The site's origins (the base store's landing rule; automated messages are claimed here). */
    site: DeliveryStoreSite,
    /** Claim only messages to subscribers whose key can sign; default: all. */
    signable?: SignableKeys,
  ) {
    super(database, site, undefined, signable);
  }

  protected override async claim(_campaignId: string, limit: number): Promise<Delivery[]> {
    const nowMs = this.dueClock();
    const now = new Date(nowMs).toISOString();
    const cap = this.site.campaignGuardrails?.frequencyCap;
    // The frequency cap's window; without a cap nothing is counted (no delivery is later than now).
    const countSince = new Date(cap ? nowMs - CAP_WINDOW_MS[cap.per] : nowMs).toISOString();
    return this.database.transaction(async (tx) => {
      await tx.query(
        `DELETE FROM campaigns WHERE id IN (
           SELECT c.id FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id JOIN subscribers s ON s.id = d.subscriber_id
           WHERE c.site_hash = $1 AND c.automation = $2 AND c.status <> 'done' AND d.status = 'pending' AND ${unclaimed(this.leaseSeconds)}
             AND d.next_attempt_at <= $3
             AND (s.endpoint IS NULL OR s.p256dh IS NULL OR s.auth IS NULL OR s.status <> 'subscribed')
           FOR UPDATE OF d SKIP LOCKED
         )`,
        [this.siteHash, this.kind, now],
      );
      const { rows } = await tx.query<ClaimedMessage>(
        `WITH picked AS (
           SELECT d.id FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id
           WHERE c.site_hash = $1 AND c.automation = $2 AND c.status <> 'done' AND d.status = 'pending'
             AND (d.next_attempt_at <= $3 OR (d.attempts > 0 AND d.next_attempt_at <= now()))
             AND ${unclaimed('$5')}
             ${this.signable ? `AND EXISTS (SELECT 1 FROM subscribers s WHERE s.id = d.subscriber_id AND ${onSignableKey(7, 8)})` : ''}
           ORDER BY d.next_attempt_at, d.id LIMIT $4 FOR UPDATE OF d SKIP LOCKED
         )
         UPDATE deliveries d SET claimed_at = now(), attempts = d.attempts + 1
         FROM picked, subscribers s, campaigns c
         WHERE d.id = picked.id AND s.id = d.subscriber_id AND c.id = d.campaign_id
           AND s.status = 'subscribed' AND s.endpoint IS NOT NULL AND s.p256dh IS NOT NULL AND s.auth IS NOT NULL
         RETURNING d.id, d.campaign_id, d.attempts, s.endpoint, s.p256dh, s.auth, s.secret_hash, c.title, c.body, c.url, c.icon, c.image, c.topic, c.tag,
           c.texts, s.language, c.automation,
           s.timezone, s.timezone_offset, c.ttl, s.vapid_key_id,
           (SELECT count(*)::int FROM deliveries x WHERE x.subscriber_id = d.subscriber_id AND x.status = 'delivered' AND x.updated_at > $6) AS recent`,
        [
          this.siteHash,
          this.kind,
          now,
          limit,
          this.leaseSeconds,
          countSince,
          ...(this.signable ? [this.signable.currentId, this.signable.ids] : []),
        ],
      );
      // The site's quiet hours and frequency cap hold automated messages back as they do campaigns.
      const sendable = await this.applyGuardrails(tx, rows, nowMs);
      return sendable.map((row) => ({
        ...claimedDelivery(row, deliveryPayload(row, this.site)),
        ...(row.topic ? { topic: row.topic } : {}),
      }));
    });
  }
}

/**
 * Sent, delivered, clicked and converted messages of one automation of a site. They outlast the event retention
 * (docs/automations.md#revenue): a message clicked is read from its report counts (delivery_breakdown, never pruned),
 * and the conversions and revenue of the clicks the event retention took from what their prune kept with the
 * automation's window (click-pruning.ts), beside what the remaining clicks give with `conversionWindowHours`.
 */
export async function automationStats(
  db: Queryable,
  siteHash: string,
  kind: AutomationKind,
  conversionWindowHours: number,
): Promise<AutomationStats> {
  const deliveries = await db.query<{ scheduled: string; sent: string; delivered: string; failed: string }>(
    `SELECT count(*) FILTER (WHERE d.status = 'pending') AS scheduled,
            count(*) FILTER (WHERE d.status <> 'pending') AS sent,
            count(*) FILTER (WHERE d.status = 'delivered') AS delivered,
            count(*) FILTER (WHERE d.status IN ('failed', 'expired')) AS failed
     FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id
     WHERE c.site_hash = $1 AND c.automation = $2`,
    [siteHash, kind],
  );
  // A message goes to one subscriber, who reports its click once (migration 45); an order of theirs within the
  // window after it is the conversion. A message whose click was pruned has its conversion in the kept rows.
  const clicks = await db.query<{ clicked: string; conversions: string }>(
    `WITH ${MESSAGE_CLICKS}
     SELECT (SELECT count(*) FROM campaigns c WHERE c.site_hash = $1 AND c.automation = $2
               AND EXISTS (SELECT 1 FROM delivery_breakdown b WHERE b.campaign_id = c.id AND b.kind = 'clicked' AND b.count > 0)) AS clicked,
            (SELECT count(*) FROM clicks WHERE EXISTS (
              SELECT 1 FROM shop_orders o
              WHERE o.site_hash = $1 AND o.subscriber_id = clicks.subscriber_id
                AND o.created_at >= clicks.clicked_at AND o.created_at <= clicks.clicked_at + make_interval(hours => $3)
            )) + (SELECT count(DISTINCT k.campaign_id) FROM campaigns c JOIN campaign_revenue_kept k ON k.campaign_id = c.id
                   WHERE c.site_hash = $1 AND c.automation = $2 AND k.conversions > 0) AS conversions`,
    [siteHash, kind, conversionWindowHours],
  );
  // An order after two clicks counts once; the kept rows hold each pruned one once (click-pruning.ts).
  const revenue = await db.query<{ currency: string; amount: string }>(
    `WITH ${MESSAGE_CLICKS},
     converted AS (
       SELECT DISTINCT ON (o.order_id) o.details FROM clicks JOIN shop_orders o
         ON o.site_hash = $1 AND o.subscriber_id = clicks.subscriber_id
        AND o.created_at >= clicks.clicked_at AND o.created_at <= clicks.clicked_at + make_interval(hours => $3)
     )
     SELECT currency, sum(amount) AS amount FROM (
       SELECT details->>'currency' AS currency, (details->>'total')::numeric AS amount FROM converted WHERE details ? 'currency'
       UNION ALL
       SELECT k.currency, k.amount FROM campaigns c JOIN campaign_revenue_kept k ON k.campaign_id = c.id
        WHERE c.site_hash = $1 AND c.automation = $2 AND k.currency IS NOT NULL
     ) figures GROUP BY 1 ORDER BY 1`,
    [siteHash, kind, conversionWindowHours],
  );
  const counts = deliveries.rows[0]!;
  const clicked = clicks.rows[0]!;
  return {
    scheduled: Number(counts.scheduled),
    sent: Number(counts.sent),
    delivered: Number(counts.delivered),
    failed: Number(counts.failed),
    failures: await automationFailures(db, siteHash, kind),
    clicked: Number(clicked.clicked),
    conversions: Number(clicked.conversions),
    revenue: revenue.rows.map((row) => ({ currency: row.currency, amount: Number(row.amount) })),
  };
}
