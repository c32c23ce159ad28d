// The webhook queue in the database (migration 17): messages are claimed like campaign deliveries, with FOR
// UPDATE SKIP LOCKED and a claimed_at stamp whose lease outlives the longest attempt, so several providers share
// the queue and a message held by one that died is taken again after the lease. A message waits while an earlier
// one of the same subscriber (order_key) to the same endpoint is pending: one subscriber's events arrive in order,
// a retry holding back the ones after it. Results of a batch are written in one statement, the log with them.
import type { Database, Queryable } from '../db/database.ts';
import { expandDeliveryResults } from './webhook-emit.ts';
import type { WebhookEventType } from '../../contract/webhook-events.ts';

/** A claim not released for this long belongs to a provider that is gone (an attempt takes at most ~15 s). */
export const WEBHOOK_CLAIM_LEASE_SECONDS = 60;
const OUTBOX_LOCK_ID = 7_405_130;

export interface ClaimedMessage {
  id: string;
  messageId: string;
  type: WebhookEventType;
  payload: string;
  /** Attempts made, this one included. */
  attempts: number;
  endpointId: string;
  url: string;
  /** The secrets that sign: the current one, and the previous one during a rotation's overlap. */
  secrets: string[];
}

/**
 * Turns the oldest outbox rows (delivery results) into events, in their order, one dispatcher at a time (an
 * advisory lock: another that finds it taken leaves the outbox alone); returns how many rows it took.
 */
export async function expandOutbox(db: Database, limit: number): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows: locked } = await tx.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [OUTBOX_LOCK_ID]);
    if (!locked[0]?.ok) return 0;
    const { rows } = await tx.query<{ id: string; deliveries: string[]; created_at: Date | string }>(
      'SELECT id, deliveries, created_at FROM webhook_outbox ORDER BY id LIMIT $1',
      [limit],
    );
    for (const row of rows) await expandDeliveryResults(tx, row.deliveries.map(String), new Date(row.created_at).toISOString());
    if (rows.length) await tx.query('DELETE FROM webhook_outbox WHERE id = ANY ($1::bigint[])', [rows.map((row) => row.id)]);
    return rows.length;
  });
}

export async function claimMessages(db: Queryable, now: number, limit: number): Promise<ClaimedMessage[]> {
  const { rows } = await db.query<{
    id: string;
    message_id: string;
    event_type: WebhookEventType;
    payload: string;
    attempts: number;
    endpoint_id: string;
    url: string;
    secret: string;
    previous_secret: string | null;
  }>(
    `WITH picked AS (
       SELECT m.id FROM webhook_messages m
       JOIN webhook_endpoints w ON w.id = m.endpoint_id AND w.disabled_at IS NULL
       WHERE m.status = 'pending' AND m.next_attempt_at <= $1
         AND (m.claimed_at IS NULL OR m.claimed_at < now() - make_interval(secs => $2))
         AND (m.order_key IS NULL OR NOT EXISTS (
           SELECT 1 FROM webhook_messages p
           WHERE p.endpoint_id = m.endpoint_id AND p.order_key = m.order_key AND p.status = 'pending'
             AND (p.created_at, p.id) < (m.created_at, m.id)))
         -- an event waits for the delivery results written before it that are not events yet (webhook_outbox)
         AND m.created_at < coalesce((SELECT min(o.created_at) FROM webhook_outbox o), 'infinity'::timestamptz)
       ORDER BY m.next_attempt_at, m.id LIMIT $3
       FOR UPDATE OF m SKIP LOCKED
     )
     UPDATE webhook_messages m SET claimed_at = now(), attempts = m.attempts + 1
     FROM webhook_endpoints w
     WHERE m.id = ANY (ARRAY(SELECT id FROM picked)) AND w.id = m.endpoint_id
     RETURNING m.id, m.message_id, m.event_type, m.payload, m.attempts, w.id AS endpoint_id, w.url, w.secret,
       CASE WHEN w.previous_secret_expires_at > $1 THEN w.previous_secret END AS previous_secret`,
    [new Date(now).toISOString(), WEBHOOK_CLAIM_LEASE_SECONDS, limit],
  );
  return rows
    .map((row) => ({
      id: String(row.id),
      messageId: row.message_id,
      type: row.event_type,
      payload: row.payload,
      attempts: Number(row.attempts),
      endpointId: String(row.endpoint_id),
      url: row.url,
      secrets: row.previous_secret ? [row.secret, row.previous_secret] : [row.secret],
    }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

export interface AttemptResult {
  id: string;
  outcome: 'delivered' | 'retrying' | 'failed';
  statusCode: number | null;
  latencyMs: number;
  response: string;
  /** When a retried message is due again. */
  nextAttemptAt?: number;
}

/** Writes a batch of attempts: each message's new state and its line in the log, in one statement. */
export async function recordAttempts(db: Queryable, results: readonly AttemptResult[]): Promise<void> {
  if (results.length === 0) return;
  await db.query(
    `WITH r AS (
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[], $5::text[], $6::timestamptz[])
         AS r (id, outcome, status_code, latency_ms, response, next_at)
     ), marked AS (
       UPDATE webhook_messages m
       SET status = CASE r.outcome WHEN 'retrying' THEN 'pending' ELSE r.outcome END,
           next_attempt_at = coalesce(r.next_at, m.next_attempt_at), claimed_at = NULL, updated_at = now()
       FROM r WHERE m.id = r.id AND m.id = ANY ($1::bigint[])
       RETURNING m.id, m.endpoint_id
     )
     INSERT INTO webhook_attempts (endpoint_id, message_id, status_code, outcome, latency_ms, response)
     SELECT marked.endpoint_id, r.id, r.status_code, r.outcome, r.latency_ms, r.response FROM r JOIN marked ON marked.id = r.id`,
    [
      results.map((result) => result.id),
      results.map((result) => result.outcome),
      results.map((result) => result.statusCode),
      results.map((result) => Math.round(result.latencyMs)),
      results.map((result) => result.response),
      results.map((result) => (result.nextAttemptAt === undefined ? null : new Date(result.nextAttemptAt).toISOString())),
    ],
  );
}

/** Disables an endpoint whose event failed for the whole retry window, saying why; its other events wait. */
export async function disableEndpoint(db: Queryable, endpointId: string, reason: string): Promise<void> {
  await db.query(`UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = $2 WHERE id = $1 AND disabled_at IS NULL`, [
    endpointId,
    reason,
  ]);
}
