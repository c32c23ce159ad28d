// The sync actions of spec section 4 ("Sync actions sent to the server"), each one transaction. A repeated
// request finds the subscriber it created before (by subscriber id, endpoint or subscription id), so it
// never duplicates one; a per-subscription advisory lock makes concurrent repeats wait for each other.
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from './database.ts';
import type { SyncPayload } from '../http/sync-payload.ts';
import type { SyncReply } from '../../contract/sync.ts';
import { serverErrorMessage, type ErrorDetails, type ServerErrorCode } from '../errors.ts';

export type SyncResult = Extract<SyncReply, { status: 'success' }> | { status: 'failure'; message: string; code: ServerErrorCode };

interface SubscriberRow {
  id: string;
  endpoint: string | null;
  subscription_id: string | null;
}

function fail<C extends ServerErrorCode>(code: C, ...details: ErrorDetails<C>): SyncResult {
  return { status: 'failure', message: serverErrorMessage(code, ...details), code };
}

function endpointOf(payload: SyncPayload): string | undefined {
  return payload.subscription?.endpoint ?? payload.subscriptionEndPoint;
}

async function lockSubscription(tx: Queryable, siteHash: string, key: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${siteHash} ${key}`]);
}

async function findById(tx: Queryable, siteHash: string, id: string | undefined): Promise<SubscriberRow | undefined> {
  if (!id) return undefined;
  const { rows } = await tx.query<SubscriberRow>('SELECT id, endpoint, subscription_id FROM subscribers WHERE site_hash = $1 AND id = $2', [
    siteHash,
    id,
  ]);
  return rows[0];
}

async function findBySubscription(
  tx: Queryable,
  siteHash: string,
  endpoint: string | undefined,
  subscriptionId: string | undefined,
): Promise<SubscriberRow | undefined> {
  if (endpoint) {
    const { rows } = await tx.query<SubscriberRow>(
      'SELECT id, endpoint, subscription_id FROM subscribers WHERE site_hash = $1 AND endpoint = $2',
      [siteHash, endpoint],
    );
    if (rows[0]) return rows[0];
  }
  if (subscriptionId) {
    const { rows } = await tx.query<SubscriberRow>(
      'SELECT id, endpoint, subscription_id FROM subscribers WHERE site_hash = $1 AND subscription_id = $2 ORDER BY updated_at DESC LIMIT 1',
      [siteHash, subscriptionId],
    );
    return rows[0];
  }
  return undefined;
}

/** The columns a sync may set; absent payload fields leave the stored value as it is. */
function profileColumns(payload: SyncPayload): Record<string, unknown> {
  const columns: Record<string, unknown> = {
    browser_type: payload.browserType,
    language: payload.userLanguage,
    timezone: payload.userTimezone,
    timezone_offset: payload.userTimezoneOffset,
    page_click_tracking_permission:
      payload.pageClickTrackingPermission === undefined ? undefined : payload.pageClickTrackingPermission ? 1 : 0,
    origin: payload.origin,
    subscription_page_url: payload.subscriptionPageUrl,
    uuid: payload.uuid,
  };
  return columns;
}

function subscriptionColumns(payload: SyncPayload): Record<string, unknown> {
  const endpoint = endpointOf(payload);
  return {
    subscription: payload.subscription ? JSON.stringify(payload.subscription) : undefined,
    subscription_id: payload.subscriptionId,
    endpoint,
    p256dh: payload.subscription?.keys?.p256dh,
    auth: payload.subscription?.keys?.auth,
  };
}

async function updateSubscriber(tx: Queryable, id: string, columns: Record<string, unknown>): Promise<void> {
  const entries = Object.entries(columns).filter(([, value]) => value !== undefined);
  const sets = entries.map(([column], index) => `${column} = $${index + 2}`);
  await tx.query(`UPDATE subscribers SET ${[...sets, 'updated_at = now()', 'last_sync_at = now()'].join(', ')} WHERE id = $1`, [
    id,
    ...entries.map(([, value]) => value),
  ]);
}

/** An endpoint belongs to one subscriber: another record still holding it has lost it. */
async function releaseEndpoint(tx: Queryable, siteHash: string, endpoint: string | undefined, keeperId: string): Promise<void> {
  if (!endpoint) return;
  await tx.query(
    `UPDATE subscribers SET endpoint = NULL, status = 'expired', updated_at = now() WHERE site_hash = $1 AND endpoint = $2 AND id <> $3`,
    [siteHash, endpoint, keeperId],
  );
}

async function recordEvent(tx: Queryable, siteHash: string, subscriberId: string, kind: string): Promise<void> {
  await tx.query('INSERT INTO events (site_hash, subscriber_id, kind) VALUES ($1, $2, $3)', [siteHash, subscriberId, kind]);
}

async function insert(tx: Queryable, siteHash: string, payload: SyncPayload): Promise<SyncResult> {
  const endpoint = endpointOf(payload);
  if (!endpoint && !payload.subscriptionId) return fail('E_SYNC_NO_SUBSCRIPTION');
  await lockSubscription(tx, siteHash, endpoint ?? payload.subscriptionId!);
  const existing =
    (await findBySubscription(tx, siteHash, endpoint, payload.subscriptionId)) ?? (await findById(tx, siteHash, payload.subscriberId));
  const columns = { ...subscriptionColumns(payload), ...profileColumns(payload), status: 'subscribed' };
  if (existing) {
    await releaseEndpoint(tx, siteHash, endpoint, existing.id);
    await updateSubscriber(tx, existing.id, columns);
    return { status: 'success', subscriberId: existing.id };
  }
  const id = randomUUID();
  const entries = Object.entries(columns).filter(([, value]) => value !== undefined);
  await tx.query(
    `INSERT INTO subscribers (id, site_hash, last_sync_at, ${entries.map(([column]) => column).join(', ')})
     VALUES ($1, $2, now(), ${entries.map((_, index) => `$${index + 3}`).join(', ')})`,
    [id, siteHash, ...entries.map(([, value]) => value)],
  );
  await recordEvent(tx, siteHash, id, 'subscribed');
  return { status: 'success', subscriberId: id };
}

async function update(tx: Queryable, siteHash: string, payload: SyncPayload): Promise<SyncResult> {
  const endpoint = endpointOf(payload);
  if (!endpoint && !payload.subscriptionId) return fail('E_SYNC_NO_SUBSCRIPTION');
  await lockSubscription(tx, siteHash, endpoint ?? payload.subscriptionId!);
  const subscriber =
    (await findById(tx, siteHash, payload.subscriberId)) ?? (await findBySubscription(tx, siteHash, endpoint, payload.subscriptionId));
  if (!subscriber) return fail('E_SYNC_NOT_SUBSCRIBED');
  await releaseEndpoint(tx, siteHash, endpoint, subscriber.id);
  await updateSubscriber(tx, subscriber.id, { ...subscriptionColumns(payload), ...profileColumns(payload), status: 'subscribed' });
  return { status: 'success', subscriberId: subscriber.id };
}

async function moveRegistration(tx: Queryable, siteHash: string, payload: SyncPayload): Promise<SyncResult> {
  if (!payload.previousSubscriptionId) return fail('E_PARAM_MISSING', { param: 'previousSubscriptionId' });
  const endpoint = endpointOf(payload);
  if (!endpoint && !payload.subscriptionId) return fail('E_SYNC_NO_SUBSCRIPTION');
  await lockSubscription(tx, siteHash, payload.previousSubscriptionId);
  const subscriber =
    (await findById(tx, siteHash, payload.subscriberId)) ??
    (await findBySubscription(tx, siteHash, undefined, payload.previousSubscriptionId)) ??
    (await findBySubscription(tx, siteHash, endpoint, payload.subscriptionId));
  if (!subscriber) return fail('E_SYNC_SUBSCRIPTION_UNKNOWN');
  await releaseEndpoint(tx, siteHash, endpoint, subscriber.id);
  await updateSubscriber(tx, subscriber.id, {
    ...subscriptionColumns(payload),
    // a new registration without keys (Safari) must not keep the old subscription's keys
    p256dh: payload.subscription?.keys?.p256dh ?? null,
    auth: payload.subscription?.keys?.auth ?? null,
    endpoint: endpoint ?? null,
    ...profileColumns(payload),
    status: 'subscribed',
  });
  await recordEvent(tx, siteHash, subscriber.id, 'registration-moved');
  return { status: 'success', subscriberId: subscriber.id };
}

async function findForVisitor(tx: Queryable, siteHash: string, payload: SyncPayload): Promise<SubscriberRow | undefined> {
  return (
    (await findById(tx, siteHash, payload.subscriberId)) ??
    (await findBySubscription(tx, siteHash, endpointOf(payload), payload.subscriptionId))
  );
}

async function httpSync(tx: Queryable, siteHash: string, payload: SyncPayload): Promise<SyncResult> {
  const subscriber = await findForVisitor(tx, siteHash, payload);
  if (!subscriber) return fail('E_SYNC_SUBSCRIBER_UNKNOWN', { param: 'subscriberId' });
  await updateSubscriber(tx, subscriber.id, profileColumns(payload));
  return { status: 'success', subscriberId: subscriber.id };
}

async function unsubscribe(tx: Queryable, siteHash: string, payload: SyncPayload, kind: string): Promise<SyncResult> {
  const subscriber = await findForVisitor(tx, siteHash, payload);
  if (!subscriber) return fail('E_SYNC_SUBSCRIBER_UNKNOWN', { param: 'subscriberId' });
  await updateSubscriber(tx, subscriber.id, { status: 'unsubscribed' });
  await recordEvent(tx, siteHash, subscriber.id, kind);
  return { status: 'success', subscriberId: subscriber.id };
}

async function subscriberIdForVisitor(tx: Queryable, siteHash: string, payload: SyncPayload): Promise<SyncResult> {
  if (!payload.uuid && !payload.subscriptionId && !endpointOf(payload)) {
    return fail('E_SYNC_NO_VISITOR');
  }
  if (payload.uuid) {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id FROM subscribers WHERE site_hash = $1 AND (uuid = $2 OR id = $2) ORDER BY (status = 'subscribed') DESC, updated_at DESC LIMIT 1`,
      [siteHash, payload.uuid],
    );
    if (rows[0]) return { status: 'success', subscriberId: rows[0].id };
  }
  const subscriber = await findBySubscription(tx, siteHash, endpointOf(payload), payload.subscriptionId);
  if (subscriber) return { status: 'success', subscriberId: subscriber.id };
  return fail('E_SYNC_VISITOR_UNKNOWN');
}

/** The visitor's uuid (`subscriberId`) differs from the stored subscriber id (`previousSubscriberId`): link them. */
async function linkVisitor(tx: Queryable, siteHash: string, payload: SyncPayload): Promise<SyncResult> {
  if (!payload.previousSubscriberId) return fail('E_PARAM_MISSING', { param: 'previousSubscriberId' });
  if (!payload.subscriberId) return fail('E_PARAM_MISSING', { param: 'subscriberId' });
  const subscriber = await findById(tx, siteHash, payload.previousSubscriberId);
  if (!subscriber) return fail('E_SYNC_SUBSCRIBER_UNKNOWN', { param: 'previousSubscriberId' });
  await updateSubscriber(tx, subscriber.id, { uuid: payload.subscriberId, browser_type: payload.browserType });
  return { status: 'success', subscriberId: subscriber.id };
}

export function runSyncAction(db: Database, siteHash: string, payload: SyncPayload): Promise<SyncResult> {
  return db.transaction(async (tx) => {
    switch (payload.action) {
      case 'insert':
      case 'insert-failed':
        return insert(tx, siteHash, payload);
      case 'update':
        return update(tx, siteHash, payload);
      case 'update-google-registration-id':
        return moveRegistration(tx, siteHash, payload);
      case 'http-sync':
        return httpSync(tx, siteHash, payload);
      case 'unsubscribe-ui':
        return unsubscribe(tx, siteHash, payload, 'unsubscribe-ui');
      case 'unsubscribe-native':
        return unsubscribe(tx, siteHash, payload, 'unsubscribe-native');
      case 'get-subscriberid-from-server':
        return subscriberIdForVisitor(tx, siteHash, payload);
      case 'update-subscriberId':
        return linkVisitor(tx, siteHash, payload);
    }
  });
}
