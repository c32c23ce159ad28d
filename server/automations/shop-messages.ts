// The shop automations' messages (docs/automations.md): browse abandonment (a product view no add-to-cart or
// order follows), price drop and back in stock (a change in the shop's product update, to the subscribers who
// viewed or carted the product within `days`), and win-back (no visit and no click for `days`). Each is an
// automated message like the others (automation-messages.ts); `campaigns.automation_key` names what it is about,
// so a subscriber gets one message per product and change, one browse reminder per product, one win-back ever.
import type { Database, Queryable } from '../db/database.ts';
import type { HostedSite } from '../sites.ts';
import type { EffectiveSettings } from './automation-settings.ts';
import { insertMessage, ONCE_PER_KEY, productPage, storedTexts, type Message } from './automation-messages.ts';
import { unclaimed } from '../campaigns/index.ts';
import { CAMPAIGN_BODY_MAX_LENGTH, CAMPAIGN_TITLE_MAX_LENGTH, DEFAULT_TTL_SECONDS } from '../../contract/campaign-limits.ts';
import { DEFAULT_URGENCY } from '../../contract/urgency.ts';
import type { AutomationKind } from '../../contract/automations.ts';
import type { LanguageTexts } from '../../contract/languages.ts';
import { automationAudienceGate } from '../audiences/index.ts';
import type { CatalogueProduct } from '../shop/index.ts';

type Site = Pick<HostedSite, 'hash' | 'config'>;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** A price with its currency: `19.99 EUR` (`1200 JPY`: the currency's own decimals). */
export function formatPrice(amount: number, currency: string): string {
  let digits = 2;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    // A code Intl does not know (the schema checks it): two decimals.
  }
  return `${amount.toFixed(digits)} ${currency}`;
}

/** `{product}`, `{price}`, `{oldPrice}` and `{url}` of a text, filled in once (a product's name is never read as a placeholder). */
function fill(template: string, product: CatalogueProduct, page: string): string {
  const values: Record<string, string> = {
    '{product}': product.name,
    '{price}': formatPrice(product.price, product.currency),
    '{oldPrice}': product.oldPrice === undefined ? '' : formatPrice(product.oldPrice, product.currency),
    '{url}': page,
  };
  return template.replace(/\{(?:product|price|oldPrice|url)\}/g, (placeholder) => values[placeholder]!);
}

function productMessage(site: Site, kind: AutomationKind, settings: EffectiveSettings, product: CatalogueProduct, key: string): Message {
  const url = productPage(site, { pName: product.name, ...(product.url ? { pUrl: product.url } : {}) }, settings.url);
  const page = url ?? site.config.origin;
  const texts: LanguageTexts = Object.fromEntries(
    Object.entries(settings.texts).map(([language, text]) => [
      language,
      { title: fill(text.title, product, page), body: fill(text.body, product, page) },
    ]),
  );
  return {
    kind,
    key,
    title: fill(settings.title, product, page),
    body: fill(settings.body, product, page),
    texts,
    url,
    image: product.image,
    tag: `pushkit-${kind}-${product.id}`.slice(0, 64),
  };
}

/** Withdraws the subscriber's waiting messages of one automation that no sender holds. */
export async function cancelWaiting(db: Queryable, siteHash: string, subscriberId: string, kind: AutomationKind): Promise<number> {
  const { rows } = await db.query(
    `DELETE FROM campaigns WHERE id IN (
       SELECT c.id FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id
       WHERE c.site_hash = $1 AND c.automation = $2 AND c.subscriber_id = $3 AND c.status <> 'done'
         AND d.status = 'pending' AND ${unclaimed()}
       FOR UPDATE OF d
     ) RETURNING 1`,
    [siteHash, kind, subscriberId],
  );
  return rows.length;
}

/**
 * Browse abandonment: one reminder waiting per subscriber, about the product viewed last (a newer view replaces
 * it and starts the delay again), never twice about one product. False when nothing was scheduled.
 */
export async function scheduleBrowseReminder(
  db: Database,
  site: Site,
  subscriberId: string,
  product: CatalogueProduct,
  settings: EffectiveSettings,
  now: number,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`browse ${site.hash} ${subscriberId}`]);
    await cancelWaiting(tx, site.hash, subscriberId, 'browseAbandonment');
    const message = productMessage(site, 'browseAbandonment', settings, product, product.id);
    return insertMessage(tx, site, subscriberId, message, now + settings.delayMinutes * MINUTE_MS);
  });
}

/**
 * A price drop or a product back in stock: one message to each subscribed subscriber who viewed or carted the
 * product within `settings.days`, in one statement; `change` names the change (a subscriber gets one per change).
 * Resolves with the number of messages scheduled.
 */
export async function scheduleProductChange(
  db: Queryable,
  site: Site,
  kind: 'priceDrop' | 'backInStock',
  product: CatalogueProduct,
  change: number,
  settings: EffectiveSettings,
  now: number,
): Promise<number> {
  const message = productMessage(site, kind, settings, product, `${product.id} ${change}`);
  return insertMany(
    db,
    site,
    message,
    `SELECT DISTINCT i.subscriber_id FROM product_interest i JOIN subscribers s ON s.id = i.subscriber_id
     WHERE i.site_hash = $1 AND i.product_id = $14 AND s.status = 'subscribed'
       AND greatest(i.viewed_at, i.carted_at) >= $15`,
    [product.id, new Date(now - settings.days * DAY_MS).toISOString()],
    now + settings.delayMinutes * MINUTE_MS,
  );
}

/**
 * Win-back: a message to each subscribed subscriber with no visit (a sync, a product view, an add-to-cart) and no
 * click for `settings.days`, once per subscriber ever. Resolves with the number scheduled.
 */
export async function scheduleWinBacks(db: Queryable, site: Site, settings: EffectiveSettings, now: number): Promise<number> {
  const message: Message = {
    kind: 'winBack',
    key: 'once',
    title: settings.title,
    body: settings.body,
    texts: settings.texts,
    url: settings.url,
  };
  return insertMany(
    db,
    site,
    message,
    `SELECT s.id FROM subscribers s
     WHERE s.site_hash = $1 AND s.status = 'subscribed' AND greatest(s.created_at, s.last_sync_at) < $15
       AND NOT EXISTS (SELECT 1 FROM campaigns w WHERE w.site_hash = $1 AND w.automation = 'winBack' AND w.subscriber_id = s.id)
       AND NOT EXISTS (SELECT 1 FROM product_interest i WHERE i.subscriber_id = s.id AND greatest(i.viewed_at, i.carted_at) >= $15)
       AND NOT EXISTS (SELECT 1 FROM events e WHERE e.subscriber_id = s.id AND e.kind = 'clicked' AND e.created_at >= $15)
       AND $14::text IS NULL`,
    [null, new Date(now - settings.days * DAY_MS).toISOString()],
    now + settings.delayMinutes * MINUTE_MS,
  );
}

/** One message (campaign and delivery) to each subscriber the query ($1 the site, then $14, $15) selects. */
async function insertMany(
  db: Queryable,
  site: Site,
  message: Message,
  targets: string,
  targetParams: unknown[],
  due: number,
): Promise<number> {
  // an automation limited to an audience (docs/audiences.md) sends only to its subscribers
  const audience = await automationAudienceGate(db, site.hash, message.kind, 't.subscriber_id', 14 + targetParams.length);
  const { rows } = await db.query<{ count: string }>(
    `WITH targets AS (${targets}),
     created AS (
       INSERT INTO campaigns (site_hash, title, body, url, icon, image, subscriber_id, ttl, urgency, automation, tag, texts, automation_key)
       SELECT $1, $2, $3, $4, $5, $6, t.subscriber_id, $7, $8, $9, $10, $11, $12 FROM targets t (subscriber_id) WHERE ${audience.sql}
       ${ONCE_PER_KEY}
       RETURNING id, subscriber_id
     ),
     delivered AS (INSERT INTO deliveries (campaign_id, subscriber_id, next_attempt_at) SELECT id, subscriber_id, $13 FROM created RETURNING 1)
     SELECT count(*) AS count FROM delivered`,
    [
      site.hash,
      message.title.slice(0, CAMPAIGN_TITLE_MAX_LENGTH),
      message.body.slice(0, CAMPAIGN_BODY_MAX_LENGTH),
      message.url,
      site.config.style.iconUrl ?? null,
      message.image ?? null,
      DEFAULT_TTL_SECONDS,
      DEFAULT_URGENCY,
      message.kind,
      message.tag ?? null,
      storedTexts(message.texts),
      message.key ?? null,
      new Date(due).toISOString(),
      ...targetParams,
      ...audience.params,
    ],
  );
  return Number(rows[0]?.count ?? 0);
}
