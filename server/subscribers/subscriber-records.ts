// Reading, exporting and deleting subscriber records for the owner API (listing, counts, privacy requests).
import type { Database, Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import { segmentsOfSubscriber } from '../segments/index.ts';
import { subscriberFailures } from '../campaigns/index.ts';
import type {
  Subscriber,
  SubscriberCounts,
  SubscriberExport,
  SubscriberListItem,
  SubscriberListQuery,
  SubscriberStatus,
} from '../../contract/owner-api.ts';
import { isoTime, isoTimeOrNull } from '../db/iso-time.ts';

interface SubscriberRow {
  id: string;
  uuid: string | null;
  status: SubscriberStatus;
  subscription: unknown;
  subscription_id: string | null;
  endpoint: string | null;
  p256dh: string | null;
  auth: string | null;
  browser_type: string | null;
  language: string | null;
  timezone: string | null;
  external_id: string | null;
  timezone_offset: number | null;
  page_click_tracking_permission: number | null;
  origin: string | null;
  subscription_page_url: string | null;
  created_at: Date;
  updated_at: Date;
  last_sync_at: Date | null;
}

function publicFields(row: SubscriberRow): Subscriber {
  return {
    id: row.id,
    uuid: row.uuid,
    status: row.status,
    subscriptionId: row.subscription_id,
    endpoint: row.endpoint,
    browserType: row.browser_type,
    language: row.language,
    timezone: row.timezone,
    externalId: row.external_id,
    timezoneOffset: row.timezone_offset,
    pageClickTrackingPermission: row.page_click_tracking_permission,
    origin: row.origin,
    subscriptionPageUrl: row.subscription_page_url,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    lastSyncAt: isoTimeOrNull(row.last_sync_at),
  };
}

/** A checked query: the page's size and start are always given. */
export type SubscriberQuery = SubscriberListQuery & { limit: number; offset: number };

function filters(siteHash: string, query: Pick<SubscriberQuery, 'status' | 'search' | 'segment'>): { where: string; params: unknown[] } {
  const params: unknown[] = [siteHash];
  const conditions = ['site_hash = $1'];
  if (query.status) {
    params.push(query.status);
    conditions.push(`status = $${params.length}`);
  }
  if (query.segment) {
    params.push(query.segment);
    conditions.push(
      `id IN (SELECT m.subscriber_id FROM segment_memberships m JOIN segments g ON g.id = m.segment_id
               WHERE g.site_hash = $1 AND g.sid = $${params.length})`,
    );
  }
  if (query.search) {
    // A case-blind substring of the id, uuid, endpoint, language, browser, time zone or external id, looked for
    // once in the seven joined by a control character (a search never holds one): a third of the work of seven
    // ILIKE tests; or of one of its tags written key=value ("plan=pro", or "pro").
    // eslint-disable-next-line no-control-regex
    params.push(query.search.replace(/[\u0000-\u001f]/g, ''));
    const text = `lower($${params.length})`;
    conditions.push(
      `(strpos(lower(concat_ws(chr(1), id, uuid, endpoint, language, browser_type, timezone, external_id)), ${text}) > 0
        OR EXISTS (SELECT 1 FROM subscriber_tags t WHERE t.subscriber_id = subscribers.id AND strpos(lower(t.key || '=' || t.value), ${text}) > 0))`,
    );
  }
  return { where: conditions.join(' AND '), params };
}

/**
 * One page of a site's subscribers and the number matching the filters, with each one's segments and tags.
 * Only the page's rows are read; the order walks the (site_hash, created_at, id) index.
 */
export async function listSubscribers(
  db: Queryable,
  siteHash: string,
  query: SubscriberQuery,
): Promise<{ total: number; subscribers: SubscriberListItem[] }> {
  const { where, params } = filters(siteHash, query);
  const direction = query.order === 'newest' ? 'DESC' : 'ASC';
  // last seen: most recently first, the never-seen last; else by subscription time along the index
  const order = query.order === 'lastSeen' ? 'last_sync_at DESC NULLS LAST, id DESC' : `created_at ${direction}, id ${direction}`;
  const countAll = () => db.query<{ count: string }>(`SELECT count(*) AS count FROM subscribers WHERE ${where}`, params);
  // A search matches a substring, which no index finds: every row of the site is read once, so the page
  // and the number of matches come from that one pass. Other filters count along an index, then read the page.
  const counted = query.search ? null : await countAll();
  const { rows } = await db.query<SubscriberRow & { matches?: string }>(
    `SELECT *${query.search ? ', count(*) OVER () AS matches' : ''} FROM subscribers WHERE ${where}
      ORDER BY ${order} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, query.limit, query.offset],
  );
  // past the last match the page is empty and says nothing of the number of matches
  const total = counted ?? (rows[0] ? { rows: [{ count: rows[0].matches! }] } : await countAll());
  const ids = rows.map((row) => row.id);
  const segments = new Map<string, string[]>();
  const tags = new Map<string, Record<string, string>>();
  if (ids.length > 0) {
    const memberships = await db.query<{ subscriber_id: string; sid: string }>(
      `SELECT m.subscriber_id, s.sid FROM segment_memberships m JOIN segments s ON s.id = m.segment_id
        WHERE m.subscriber_id = ANY($1::text[]) ORDER BY s.sid`,
      [ids],
    );
    for (const row of memberships.rows) segments.set(row.subscriber_id, [...(segments.get(row.subscriber_id) ?? []), row.sid]);
    const tagRows = await db.query<{ subscriber_id: string; key: string; value: string }>(
      'SELECT subscriber_id, key, value FROM subscriber_tags WHERE subscriber_id = ANY($1::text[]) ORDER BY key',
      [ids],
    );
    for (const row of tagRows.rows) tags.set(row.subscriber_id, { ...tags.get(row.subscriber_id), [row.key]: row.value });
  }
  return {
    total: Number(total.rows[0]!.count),
    subscribers: rows.map((row) => ({ ...publicFields(row), segments: segments.get(row.id) ?? [], tags: tags.get(row.id) ?? {} })),
  };
}

export async function countSubscribers(db: Queryable, siteHash: string): Promise<SubscriberCounts> {
  const { rows } = await db.query<{ status: SubscriberStatus; count: string }>(
    'SELECT status, count(*) AS count FROM subscribers WHERE site_hash = $1 GROUP BY status',
    [siteHash],
  );
  const byStatus = { subscribed: 0, unsubscribed: 0, blocked: 0, expired: 0 };
  for (const row of rows) byStatus[row.status] = Number(row.count);
  return { count: Object.values(byStatus).reduce((sum, value) => sum + value, 0), byStatus };
}

export async function subscriberExists(db: Queryable, siteHash: string, id: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM subscribers WHERE site_hash = $1 AND id = $2', [siteHash, id]);
  return rows.length === 1;
}

/** Everything stored about one subscriber (a privacy access request), or null when there is no such subscriber. */
export async function exportSubscriber(db: Queryable, siteHash: string, id: string): Promise<SubscriberExport | null> {
  const { rows } = await db.query<SubscriberRow>('SELECT * FROM subscribers WHERE site_hash = $1 AND id = $2', [siteHash, id]);
  const row = rows[0];
  if (!row) return null;
  const tags = await db.query<{ key: string; value: string }>(
    'SELECT key, value FROM subscriber_tags WHERE subscriber_id = $1 ORDER BY key',
    [id],
  );
  const dimensions = await db.query<{ name: string; value: string }>(
    'SELECT name, value FROM subscriber_dimensions WHERE subscriber_id = $1 ORDER BY name',
    [id],
  );
  const events = await db.query<{ kind: string; campaign_id: string | null; detail: unknown; created_at: Date }>(
    'SELECT kind, campaign_id, detail, created_at FROM events WHERE subscriber_id = $1 ORDER BY id',
    [id],
  );
  const deliveries = await db.query<{ campaign_id: string; status: string; attempts: number; updated_at: Date }>(
    'SELECT campaign_id, status, attempts, updated_at FROM deliveries WHERE subscriber_id = $1 ORDER BY id',
    [id],
  );
  return {
    subscriber: { ...publicFields(row), subscription: row.subscription, p256dh: row.p256dh, auth: row.auth },
    tags: Object.fromEntries(tags.rows.map((tag) => [tag.key, tag.value])),
    dimensions: Object.fromEntries(dimensions.rows.map((dimension) => [dimension.name, dimension.value])),
    segments: await segmentsOfSubscriber(db, id),
    events: events.rows.map((event) => ({
      kind: event.kind,
      campaignId: event.campaign_id === null ? null : String(event.campaign_id),
      detail: event.detail,
      at: isoTime(event.created_at),
    })),
    deliveries: deliveries.rows.map((delivery) => ({
      campaignId: String(delivery.campaign_id),
      status: delivery.status,
      attempts: delivery.attempts,
      updatedAt: isoTime(delivery.updated_at),
    })),
    received: deliveries.rows.filter((delivery) => delivery.status === 'delivered').length,
    // why pushes to them failed, by reason, and the last time
    ...(await subscriberFailures(db, id)),
  };
}

/** Erases a subscriber and everything that refers to them (a privacy deletion request). */
export async function deleteSubscriber(db: Database, siteHash: string, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query('DELETE FROM subscribers WHERE site_hash = $1 AND id = $2 RETURNING id', [siteHash, id]);
    // Their automated messages name what they put in their cart: they go with them.
    if (rows.length === 1) {
      await tx.query('DELETE FROM campaigns WHERE site_hash = $1 AND subscriber_id = $2 AND automation IS NOT NULL', [siteHash, id]);
    }
    return rows.length === 1;
  });
}

/** Tags one subscriber may hold (each key at most 64 characters, each value 256): /dyn stays small. */
export const MAX_TAGS_PER_SUBSCRIBER = 100;

/** Sets (or, for null, deletes) the subscriber's tags, all or none; past MAX_TAGS_PER_SUBSCRIBER nothing is stored (E_TAG_LIMIT). */
export async function setTags(db: Database, subscriberId: string, tags: Record<string, string | null>): Promise<void> {
  await db.transaction(async (tx) => {
    // one writer per subscriber, so two calls cannot pass the limit together
    await tx.query('SELECT id FROM subscribers WHERE id = $1 FOR UPDATE', [subscriberId]);
    for (const [key, value] of Object.entries(tags)) {
      if (value === null) {
        await tx.query('DELETE FROM subscriber_tags WHERE subscriber_id = $1 AND key = $2', [subscriberId, key]);
        continue;
      }
      await tx.query(
        `INSERT INTO subscriber_tags (subscriber_id, key, value) VALUES ($1, $2, $3)
         ON CONFLICT (subscriber_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
        [subscriberId, key, value],
      );
    }
    const { rows } = await tx.query<{ count: string | number }>('SELECT count(*) AS count FROM subscriber_tags WHERE subscriber_id = $1', [
      subscriberId,
    ]);
    const count = Number(rows[0]?.count ?? 0);
    if (count > MAX_TAGS_PER_SUBSCRIBER) throw new ServerError('E_TAG_LIMIT', { limit: MAX_TAGS_PER_SUBSCRIBER });
  });
}

export async function setDimensions(db: Database, subscriberId: string, dimensions: Record<string, string | null>): Promise<void> {
  await db.transaction(async (tx) => {
    for (const [name, value] of Object.entries(dimensions)) {
      if (value === null) {
        await tx.query('DELETE FROM subscriber_dimensions WHERE subscriber_id = $1 AND name = $2', [subscriberId, name]);
        continue;
      }
      await tx.query(
        `INSERT INTO subscriber_dimensions (subscriber_id, name, value) VALUES ($1, $2, $3)
         ON CONFLICT (subscriber_id, name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
        [subscriberId, name, value],
      );
    }
  });
}

export async function tagsOf(db: Queryable, subscriberId: string): Promise<Record<string, string>> {
  const { rows } = await db.query<{ key: string; value: string }>(
    'SELECT key, value FROM subscriber_tags WHERE subscriber_id = $1 ORDER BY key',
    [subscriberId],
  );
  return Object.fromEntries(rows.map((row) => [row.key, row.value]));
}

/** Custom dimension values by name; a dimension not set falls back to the tag of the same name. */
export async function dimensionValues(db: Queryable, subscriberId: string, names: string[]): Promise<Record<string, string>> {
  const { rows } = await db.query<{ name: string; value: string }>(
    `SELECT name, value FROM subscriber_dimensions WHERE subscriber_id = $1 AND name = ANY($2::text[])
     UNION ALL
     SELECT key AS name, value FROM subscriber_tags WHERE subscriber_id = $1 AND key = ANY($2::text[])
       AND key NOT IN (SELECT name FROM subscriber_dimensions WHERE subscriber_id = $1)`,
    [subscriberId, names],
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.value]));
}
