// What the rest of the provider calls when something happens that an owner's webhook may want: one statement
// each, which writes one message per enabled endpoint of the site subscribed to the event (none when no endpoint
// is) into the queue the dispatcher sends from (webhook-dispatcher.ts). Called inside the caller's transaction
// where it has one, so an event is queued exactly when what it reports is stored. The body is built here, once,
// and sent byte for byte on every attempt. A `dedupe` key makes a repeated call (a batch written again after the
// database was away, a report repeated) queue nothing more.
import type { Queryable } from '../db/database.ts';
import type { WebhookEventType } from '../../contract/webhook-events.ts';

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The data of subscriber.* events (contract/webhook-events.ts WebhookSubscriber) of the row `s`. The sync's insert
 * and update write subscriber.created/.updated in the database function pushkit_sync_batch (migration 51) with a copy
 * of this: a change here needs a migration that replaces that function (webhooks.test.ts compares the two).
 */
const SUBSCRIBER_DATA = `jsonb_build_object('subscriberId', s.id, 'status', s.status, 'browserType', s.browser_type,
  'language', s.language, 'timezone', s.timezone, 'origin', s.origin, 'createdAt', ${iso('s.created_at')})`;

const NOTIFICATION_DATA = `jsonb_build_object('campaignId', c.id::text, 'subscriberId', d.subscriber_id, 'automation', c.automation)`;

/**
 * Queues the events `events` selects, columns (site_hash, type, data jsonb, order_key, dedupe_key), for every
 * enabled endpoint of their site that takes their type; `at` is when they happened (SQL), now by default.
 */
function enqueueStatement(events: string, at = 'now()'): string {
  return `INSERT INTO webhook_messages (endpoint_id, event_type, payload, order_key, dedupe_key, created_at)
     SELECT w.id, x.type, jsonb_build_object('type', x.type, 'timestamp', ${iso(at)}, 'data', x.data)::text, x.order_key, x.dedupe_key,
       ${at}
     FROM (${events}) AS x
     JOIN webhook_endpoints w ON w.site_hash = x.site_hash AND x.type = ANY (w.events) AND w.disabled_at IS NULL
     ON CONFLICT DO NOTHING`;
}

async function enqueue(db: Queryable, events: string, params: unknown[], at = 'now()'): Promise<void> {
  await db.query(enqueueStatement(events, at), params);
}

type SubscriberEvent = Extract<WebhookEventType, 'subscriber.created' | 'subscriber.updated' | 'subscriber.unsubscribed'>;

/** subscriber.created, .updated, .unsubscribed of one subscriber, as it is stored now. */
export function subscriberEvent(db: Queryable, siteHash: string, subscriberId: string, type: SubscriberEvent): Promise<void> {
  return enqueue(
    db,
    `SELECT s.site_hash, $3::text AS type, ${SUBSCRIBER_DATA} AS data, s.id AS order_key, NULL::text AS dedupe_key
     FROM subscribers s WHERE s.id = $1 AND s.site_hash = $2`,
    [subscriberId, siteHash, type],
  );
}

/** subscriber.blocked: a visitor refused permission (the subscriber when its browser proved it, else null). */
export function subscriberBlocked(db: Queryable, siteHash: string, subscriberId: string | null, browserType: string | null): Promise<void> {
  return enqueue(
    db,
    `SELECT $1::text AS site_hash, 'subscriber.blocked'::text AS type,
       jsonb_build_object('subscriberId', $2::text, 'browserType', $3::text) AS data, $2::text AS order_key, NULL::text AS dedupe_key`,
    [siteHash, subscriberId, browserType],
  );
}

/** The events a delivery result may make. */
const DELIVERY_EVENTS: WebhookEventType[] = ['notification.delivered', 'notification.failed', 'subscriber.expired', 'automation.sent'];

/**
 * Deliveries whose results were just written (campaigns and automated messages alike), in a campaign's hot path:
 * one row of their ids in the outbox, when an endpoint takes any of their events; the dispatcher turns it into
 * their events later (expandDeliveryResults). As SQL, for the statement that writes the results to carry as a
 * data-modifying `WITH` part (one statement per result batch; the outbox row is stored exactly when the results
 * are): `ids` is the SQL of the deliveries' ids (a bigint[] parameter).
 */
export function deliveryResultsStatement(ids: string): string {
  const events = `ARRAY[${DELIVERY_EVENTS.map((type) => `'${type}'`).join(', ')}]::text[]`;
  return `INSERT INTO webhook_outbox (deliveries) SELECT ${ids}
     WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE disabled_at IS NULL AND events && ${events})`;
}

/**
 * The events of an outbox row's deliveries, as of `at` (when their results were written): notification.delivered
 * (and automation.sent for an automated message), notification.failed with the reason, subscriber.expired for a
 * subscription the push service called gone. No dedupe key (its unique index): an outbox row is expanded once.
 */
export function expandDeliveryResults(db: Queryable, deliveryIds: readonly string[], at: string): Promise<void> {
  return enqueue(
    db,
    `SELECT c.site_hash, t.type,
       CASE t.type
         WHEN 'subscriber.expired' THEN ${SUBSCRIBER_DATA}
         WHEN 'automation.sent' THEN jsonb_build_object('automation', c.automation, 'campaignId', c.id::text, 'subscriberId', d.subscriber_id)
         WHEN 'notification.failed' THEN ${NOTIFICATION_DATA} || jsonb_build_object('reason', left(d.last_error, 256))
         ELSE ${NOTIFICATION_DATA}
       END AS data,
       d.subscriber_id AS order_key, NULL::text AS dedupe_key
     FROM deliveries d
     JOIN campaigns c ON c.id = d.campaign_id
     JOIN subscribers s ON s.id = d.subscriber_id
     CROSS JOIN LATERAL unnest(CASE d.status
       WHEN 'delivered' THEN CASE WHEN c.automation IS NULL THEN ARRAY['notification.delivered'] ELSE ARRAY['notification.delivered', 'automation.sent'] END
       WHEN 'failed' THEN ARRAY['notification.failed']
       WHEN 'expired' THEN ARRAY['subscriber.expired']
       ELSE ARRAY[]::text[] END) AS t (type)
     WHERE d.id = ANY ($1::bigint[]) AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.site_hash = c.site_hash)`,
    [deliveryIds, at],
    '$2::timestamptz',
  );
}

/** notification.shown, .clicked, .closed: a report the provider counted (once per campaign and subscriber). */
export function notificationReported(
  db: Queryable,
  siteHash: string,
  campaignId: string,
  subscriberId: string,
  event: 'shown' | 'clicked' | 'closed',
): Promise<void> {
  return enqueue(
    db,
    `SELECT c.site_hash, 'notification.' || $4 AS type, ${NOTIFICATION_DATA} AS data, d.subscriber_id AS order_key,
       'notification.' || $4 || ':' || d.id AS dedupe_key
     FROM deliveries d JOIN campaigns c ON c.id = d.campaign_id
     WHERE d.campaign_id = $1 AND d.subscriber_id = $2 AND c.site_hash = $3`,
    [campaignId, subscriberId, siteHash, event],
  );
}

/** conversion: the shop's order of a subscriber who clicked a notification within the window before it. */
export function orderConverted(db: Queryable, siteHash: string, orderId: string, subscriberId: string, windowHours: number): Promise<void> {
  return enqueue(
    db,
    `SELECT $1::text AS site_hash, 'conversion'::text AS type,
       jsonb_build_object('orderId', $2::text, 'subscriberId', $3::text, 'campaignId', k.campaign_id::text, 'automation', c.automation,
         'clickedAt', ${iso('k.created_at')}, 'total', (o.details->>'total')::numeric) AS data,
       $3::text AS order_key, 'conversion:' || $2 AS dedupe_key
     FROM (SELECT e.campaign_id, e.created_at FROM events e
           WHERE e.site_hash = $1 AND e.subscriber_id = $3 AND e.kind = 'clicked' AND e.campaign_id IS NOT NULL
             AND e.created_at >= now() - make_interval(hours => $4)
           ORDER BY e.created_at DESC LIMIT 1) AS k
     JOIN campaigns c ON c.id = k.campaign_id
     LEFT JOIN shop_orders o ON o.site_hash = $1 AND o.order_id = $2`,
    [siteHash, orderId, subscriberId, windowHours],
  );
}

/** campaign.completed: an owner's campaign has nothing left pending (once, whichever runner finished it). */
export function campaignCompleted(db: Queryable, campaignId: string): Promise<void> {
  return enqueue(
    db,
    `SELECT c.site_hash, 'campaign.completed'::text AS type,
       jsonb_build_object('campaignId', c.id::text, 'title', c.title, 'recipients', f.recipients, 'delivered', f.delivered,
         'failed', f.failed, 'expired', f.expired, 'completedAt', ${iso('coalesce(c.completed_at, now())')}) AS data,
       NULL::text AS order_key, 'campaign.completed:' || c.id AS dedupe_key
     FROM campaigns c CROSS JOIN LATERAL (
       SELECT count(*)::int AS recipients, (count(*) FILTER (WHERE d.status = 'delivered'))::int AS delivered,
         (count(*) FILTER (WHERE d.status = 'failed'))::int AS failed, (count(*) FILTER (WHERE d.status = 'expired'))::int AS expired
       FROM deliveries d WHERE d.campaign_id = c.id) AS f
     WHERE c.id = $1 AND c.status = 'done' AND c.automation IS NULL
       AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.site_hash = c.site_hash)`,
    [campaignId],
  );
}
