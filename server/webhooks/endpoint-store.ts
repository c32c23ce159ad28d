// A site's webhook endpoints and their delivery log, in the database (migration 17).
import type { Queryable } from '../db/database.ts';
import type { WebhookAttempt, WebhookEndpoint, WebhookEventType, WebhookMessage } from '../../contract/webhook-events.ts';
import { isoTime } from '../db/iso-time.ts';

interface EndpointRow {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  disabled_at: Date | string | null;
  disabled_reason: string | null;
  created_at: Date | string;
  previous_secret_expires_at: Date | string | null;
  previous_valid: boolean;
  pending: string | number;
}

const ENDPOINT_SELECT = `
  SELECT w.id, w.url, w.events, w.description, w.disabled_at, w.disabled_reason, w.created_at, w.previous_secret_expires_at,
    (w.previous_secret IS NOT NULL AND w.previous_secret_expires_at > $2) AS previous_valid,
    (SELECT count(*) FROM webhook_messages m WHERE m.endpoint_id = w.id AND m.status = 'pending') AS pending
  FROM webhook_endpoints w`;

function endpointOf(row: EndpointRow): WebhookEndpoint {
  return {
    endpointId: String(row.id),
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.disabled_at ? 'disabled' : 'enabled',
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at ? isoTime(row.disabled_at) : null,
    pending: Number(row.pending),
    createdAt: isoTime(row.created_at),
    previousSecretExpiresAt: row.previous_valid && row.previous_secret_expires_at ? isoTime(row.previous_secret_expires_at) : null,
  };
}

export async function listEndpoints(db: Queryable, siteHash: string, now: number): Promise<WebhookEndpoint[]> {
  const { rows } = await db.query<EndpointRow>(`${ENDPOINT_SELECT} WHERE w.site_hash = $1 ORDER BY w.id`, [
    siteHash,
    new Date(now).toISOString(),
  ]);
  return rows.map(endpointOf);
}

export async function findEndpoint(db: Queryable, siteHash: string, id: string, now: number): Promise<WebhookEndpoint | undefined> {
  const { rows } = await db.query<EndpointRow>(`${ENDPOINT_SELECT} WHERE w.site_hash = $1 AND w.id = $3`, [
    siteHash,
    new Date(now).toISOString(),
    id,
  ]);
  return rows[0] && endpointOf(rows[0]);
}

export async function countEndpoints(db: Queryable, siteHash: string): Promise<number> {
  const { rows } = await db.query<{ count: string }>('SELECT count(*) AS count FROM webhook_endpoints WHERE site_hash = $1', [siteHash]);
  return Number(rows[0]?.count ?? 0);
}

export async function insertEndpoint(
  db: Queryable,
  siteHash: string,
  fields: { url: string; events: WebhookEventType[]; description: string | null; secret: string },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO webhook_endpoints (site_hash, url, events, description, secret) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [siteHash, fields.url, fields.events, fields.description, fields.secret],
  );
  return String(rows[0]!.id);
}

/** Changes what is given; `enabled: true` clears a disablement and makes the endpoint's waiting events due now. */
export async function updateEndpoint(
  db: Queryable,
  siteHash: string,
  id: string,
  change: { events?: WebhookEventType[]; description?: string; enabled?: boolean },
  now: number,
): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE webhook_endpoints SET events = coalesce($3, events), description = coalesce($4, description),
       disabled_at = CASE WHEN $5::boolean IS NULL THEN disabled_at WHEN $5 THEN NULL ELSE coalesce(disabled_at, now()) END,
       disabled_reason = CASE WHEN $5::boolean IS NULL THEN disabled_reason WHEN $5 THEN NULL
         ELSE coalesce(disabled_reason, 'disabled by the owner') END
     WHERE site_hash = $1 AND id = $2 RETURNING id`,
    [siteHash, id, change.events ?? null, change.description ?? null, change.enabled ?? null],
  );
  if (rows.length === 0) return false;
  if (change.enabled) {
    await db.query(
      `UPDATE webhook_messages SET next_attempt_at = $2 WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at > $2`,
      [id, new Date(now).toISOString()],
    );
  }
  return true;
}

export async function deleteEndpoint(db: Queryable, siteHash: string, id: string): Promise<boolean> {
  const { rows } = await db.query('DELETE FROM webhook_endpoints WHERE site_hash = $1 AND id = $2 RETURNING id', [siteHash, id]);
  return rows.length > 0;
}

/** The new secret signs from now on; the old one beside it until `overlapUntil` (none when null). */
export async function rotateEndpointSecret(
  db: Queryable,
  siteHash: string,
  id: string,
  secret: string,
  overlapUntil: number | null,
): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE webhook_endpoints SET previous_secret = CASE WHEN $4::timestamptz IS NULL THEN NULL ELSE secret END,
       previous_secret_expires_at = $4, secret = $3
     WHERE site_hash = $1 AND id = $2 RETURNING id`,
    [siteHash, id, secret, overlapUntil === null ? null : new Date(overlapUntil).toISOString()],
  );
  return rows.length > 0;
}

export async function endpointAttempts(db: Queryable, endpointId: string, limit: number): Promise<WebhookAttempt[]> {
  const { rows } = await db.query<{
    id: string;
    message_id: string;
    event_type: WebhookEventType;
    attempted_at: Date | string;
    status_code: number | null;
    outcome: WebhookAttempt['outcome'];
    latency_ms: number;
    response: string;
  }>(
    `SELECT a.id, m.message_id, m.event_type, a.attempted_at, a.status_code, a.outcome, a.latency_ms, a.response
     FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id
     WHERE a.endpoint_id = $1 ORDER BY a.id DESC LIMIT $2`,
    [endpointId, limit],
  );
  return rows.map((row) => ({
    attemptId: String(row.id),
    messageId: row.message_id,
    type: row.event_type,
    attemptedAt: isoTime(row.attempted_at),
    statusCode: row.status_code === null ? null : Number(row.status_code),
    outcome: row.outcome,
    latencyMs: Number(row.latency_ms),
    response: row.response,
  }));
}

export async function endpointMessages(db: Queryable, endpointId: string, limit: number): Promise<WebhookMessage[]> {
  const { rows } = await db.query<{
    message_id: string;
    event_type: WebhookEventType;
    status: WebhookMessage['status'];
    attempts: number;
    created_at: Date | string;
    next_attempt_at: Date | string;
  }>(
    `SELECT message_id, event_type, status, attempts, created_at, next_attempt_at FROM webhook_messages
     WHERE endpoint_id = $1 ORDER BY id DESC LIMIT $2`,
    [endpointId, limit],
  );
  return rows.map((row) => ({
    messageId: row.message_id,
    type: row.event_type,
    status: row.status,
    attempts: Number(row.attempts),
    createdAt: isoTime(row.created_at),
    nextAttemptAt: row.status === 'pending' ? isoTime(row.next_attempt_at) : null,
  }));
}

/** Sends a message of the endpoint again from its first attempt (a fresh retry window), due now. */
export async function replayMessage(db: Queryable, endpointId: string, messageId: string, now: number): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE webhook_messages SET status = 'pending', attempts = 0, next_attempt_at = $3, claimed_at = NULL, updated_at = now()
     WHERE endpoint_id = $1 AND message_id = $2 RETURNING id`,
    [endpointId, messageId, new Date(now).toISOString()],
  );
  return rows.length > 0;
}
