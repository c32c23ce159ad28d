// The sync actions of spec section 4 ("Sync actions sent to the server"), each one transaction. A repeated
// request finds the subscriber it created before (by subscriber id, endpoint or subscription id), so it
// never duplicates one; a per-subscription advisory lock makes concurrent repeats wait for each other.
// On PostgreSQL each statement is a round trip, so the actions a browser sends most are one statement each: an
// insert or update is one action of the database function pushkit_sync_batch (migration 51: the lock, the look-up, the
// proof, the write, its event and webhook messages), an in-sync browser's http-sync (its id and secret) one UPDATE; the other
// actions are transactions of a few named prepared statements (bench/README.md, sync endpoint).
// Every action that acts for an existing subscriber needs proof that the request comes from its browser
// (subscriber-proof.ts): the secret issued to it, or the push subscription it holds where stated below.
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../db/database.ts';
import type { SyncPayload } from './sync-payload.ts';
import type { SyncReply } from '../../contract/sync.ts';
import { serverErrorMessage, type ErrorDetails, type ServerErrorCode } from '../errors.ts';
import { issueSecret, newSecret, secretHash, secretMatches } from '../subscribers/index.ts';
import { subscriberBlocked, subscriberEvent } from '../webhooks/index.ts';
import { runBatch, syncBatcher, type BatchAction, type BatchRow } from './sync-batch.ts';

export type SyncResult = Extract<SyncReply, { status: 'success' }> | { status: 'failure'; message: string; code: ServerErrorCode };

export interface SyncOutcome {
  reply: SyncResult;
  /**
   * After an insert that was one statement: the owner's stored switch of the welcome automation, which that
   * statement read (null: never changed, the site config's stands). Undefined: not read.
   */
  welcomeEnabled?: boolean | null;
}

interface SubscriberRow {
  id: string;
  endpoint: string | null;
  subscription_id: string | null;
  secret_hash: string | null;
}

const ROW = 'id, endpoint, subscription_id, secret_hash';

function fail<C extends ServerErrorCode>(code: C, ...details: ErrorDetails<C>): SyncResult {
  return { status: 'failure', message: serverErrorMessage(code, ...details), code };
}

function endpointOf(payload: SyncPayload): string | undefined {
  return payload.subscription?.endpoint ?? payload.subscriptionEndPoint;
}

const lockKey = (siteHash: string, key: string) => `${siteHash} ${key}`;

async function lockSubscription(tx: Queryable, siteHash: string, key: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey(siteHash, key)]);
}

/** Every statement of a sync action as a named prepared statement (on PostgreSQL; the texts are a few fixed ones). */
function prepared(tx: Queryable): Queryable {
  return { query: (sql, params) => tx.query(sql, params, { prepare: true }) };
}

type Way = 'id' | 'endpoint' | 'subscription';

/**
 * The first subscriber found by the look-ups `ways`, tried in their order (a way whose value is absent is
 * skipped): the same answer as one look-up after the other, in one statement. By subscription id, the most
 * recently updated one.
 */
async function findFirst(tx: Queryable, siteHash: string, ways: [Way, string | undefined][]): Promise<SubscriberRow | undefined> {
  const params: unknown[] = [siteHash];
  const branches = ways.flatMap(([way, value], rank) => {
    if (!value) return [];
    params.push(value);
    const where = `site_hash = $1 AND ${way === 'id' ? 'id' : way === 'endpoint' ? 'endpoint' : 'subscription_id'} = $${params.length}`;
    const order = way === 'subscription' ? ' ORDER BY updated_at DESC' : '';
    return [`(SELECT ${ROW}, ${rank} AS rank FROM subscribers WHERE ${where}${order} LIMIT 1)`];
  });
  if (branches.length === 0) return undefined;
  const { rows } = await tx.query<SubscriberRow>(
    branches.length === 1 ? branches[0]! : `SELECT ${ROW} FROM (${branches.join(' UNION ALL ')}) found ORDER BY rank LIMIT 1`,
    params,
  );
  const row = rows[0];
  return row && { id: row.id, endpoint: row.endpoint, subscription_id: row.subscription_id, secret_hash: row.secret_hash };
}

async function findById(tx: Queryable, siteHash: string, id: string | undefined): Promise<SubscriberRow | undefined> {
  if (!id) return undefined;
  const { rows } = await tx.query<SubscriberRow>(`SELECT ${ROW} FROM subscribers WHERE site_hash = $1 AND id = $2`, [siteHash, id]);
  return rows[0];
}

async function findBySubscription(
  tx: Queryable,
  siteHash: string,
  endpoint: string | undefined,
  subscriptionId: string | undefined,
): Promise<SubscriberRow | undefined> {
  if (endpoint) {
    const { rows } = await tx.query<SubscriberRow>(`SELECT ${ROW} FROM subscribers WHERE site_hash = $1 AND endpoint = $2`, [
      siteHash,
      endpoint,
    ]);
    if (rows[0]) return rows[0];
  }
  if (subscriptionId) {
    const { rows } = await tx.query<SubscriberRow>(
      `SELECT ${ROW} FROM subscribers WHERE site_hash = $1 AND subscription_id = $2 ORDER BY updated_at DESC LIMIT 1`,
      [siteHash, subscriptionId],
    );
    return rows[0];
  }
  return undefined;
}

/**
 * The browser holds the subscriber's push subscription: it sent the endpoint stored for it, or its
 * registration id (the endpoint's last segment; Safari's device token). Both are capabilities that only the
 * browser, its push service and the provider know.
 */
function holdsSubscription(row: SubscriberRow, payload: SyncPayload): boolean {
  const endpoint = endpointOf(payload);
  return Boolean((row.endpoint && endpoint === row.endpoint) || (row.subscription_id && payload.subscriptionId === row.subscription_id));
}

type Proof = { ok: true; issue: boolean } | { ok: false; failure: SyncResult };

const proofFailure = (payload: SyncPayload, param: string): SyncResult =>
  payload.subscriberSecret ? fail('E_SUBSCRIBER_SECRET_WRONG', { param }) : fail('E_SUBSCRIBER_SECRET_MISSING', { param });

/**
 * Whether the request may act for `row`: by its secret; or by holding its push subscription when the
 * subscriber has no secret yet (stored before secrets existed: it gets one now, once) or when the action
 * accepts that proof (`bySubscription`: a browser that lost its storage subscribing again gets a new secret).
 */
function prove(row: SubscriberRow, payload: SyncPayload, param: string, bySubscription = false): Proof {
  if (secretMatches(row.secret_hash, payload.subscriberSecret)) return { ok: true, issue: false };
  if ((bySubscription || !row.secret_hash) && holdsSubscription(row, payload)) return { ok: true, issue: true };
  return { ok: false, failure: proofFailure(payload, param) };
}

/** The success reply, with a newly issued secret when the browser needs one. */
async function succeed(tx: Queryable, subscriberId: string, issue: boolean): Promise<SyncResult> {
  if (!issue) return { status: 'success', subscriberId };
  return { status: 'success', subscriberId, subscriberSecret: await issueSecret(tx, subscriberId) };
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

/** `action` with profileColumns as pushkit_sync_batch (BatchAction) names them: set on it, not spread from an object made per sync. */
function withVisitFields(action: BatchAction, payload: SyncPayload): BatchAction {
  const click = payload.pageClickTrackingPermission;
  action.browser_type = payload.browserType;
  action.language = payload.userLanguage;
  action.timezone = payload.userTimezone;
  action.timezone_offset = payload.userTimezoneOffset;
  action.click = click === undefined ? undefined : click ? 1 : 0;
  action.origin = payload.origin;
  action.page_url = payload.subscriptionPageUrl;
  action.uuid = payload.uuid;
  return action;
}

function subscriptionColumns(payload: SyncPayload, vapidKeyId?: string): Record<string, unknown> {
  const endpoint = endpointOf(payload);
  return {
    subscription: payload.subscription ? JSON.stringify(payload.subscription) : undefined,
    subscription_id: payload.subscriptionId,
    endpoint,
    p256dh: payload.subscription?.keys?.p256dh,
    auth: payload.subscription?.keys?.auth,
    // the key on the site's ring this push subscription was made with: its pushes are signed with it
    vapid_key_id: endpoint ? vapidKeyId : undefined,
  };
}

/** `SET` of a sync's update of the subscriber; its values are parameters from `$first` on. */
function updateSets(columns: Record<string, unknown>, first: number): { sets: string; values: unknown[] } {
  const entries = Object.entries(columns).filter(([, value]) => value !== undefined);
  const endpoint = entries.findIndex(([column]) => column === 'endpoint');
  const sets = entries.map(([column], index) =>
    // A push subscription keeps the key it was made with for as long as its endpoint: a sync of the same endpoint
    // (an imported subscription a page reports with the site's current key) leaves the recorded key alone.
    column === 'vapid_key_id' && endpoint >= 0
      ? `vapid_key_id = CASE WHEN endpoint IS DISTINCT FROM $${endpoint + first} THEN $${index + first} ELSE vapid_key_id END`
      : `${column} = $${index + first}`,
  );
  return { sets: [...sets, 'updated_at = now()', 'last_sync_at = now()'].join(', '), values: entries.map(([, value]) => value) };
}

async function updateSubscriber(tx: Queryable, id: string, columns: Record<string, unknown>): Promise<void> {
  const { sets, values } = updateSets(columns, 2);
  await tx.query(`UPDATE subscribers SET ${sets} WHERE id = $1`, [id, ...values]);
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

/** Runs one action of pushkit_sync_batch: in the batcher's next batch, or alone inside a transaction. */
type RunAction = (action: BatchAction) => Promise<BatchRow>;

const alone =
  (tx: Queryable): RunAction =>
  async (action) =>
    (await runBatch(tx, [action]))[0]!;

/**
 * An insert (or insert-failed) or update, as one action of pushkit_sync_batch (migration 51) in a batch (sync-batch.ts): under
 * the subscription's advisory lock, the subscriber found by the look-ups (insert: endpoint, subscription id, subscriber
 * id; update: subscriber id, endpoint, subscription id) is proven by its secret or, for an insert or a subscriber without
 * a secret yet, by holding the subscription (a new secret is issued then); the endpoint is released from any other
 * record, the subscriber updated (absent fields keep their values) and subscriber.updated queued. An insert that
 * finds no proven subscriber stores a new one with its secret, its `subscribed` event and subscriber.created; an
 * update answers E_SYNC_NOT_SUBSCRIBED or the proof's failure and writes nothing.
 */
async function storeSubscription(run: RunAction, siteHash: string, payload: SyncPayload, vapidKeyId?: string): Promise<SyncOutcome> {
  const endpoint = endpointOf(payload);
  const key = endpoint ?? payload.subscriptionId;
  if (!key) return { reply: fail('E_SYNC_NO_SUBSCRIPTION') };
  const action = payload.action === 'update' ? 'update' : 'insert';
  const issued = newSecret();
  const newId = randomUUID();
  const row = await run(
    withVisitFields(
      {
        action,
        site: siteHash,
        lock: lockKey(siteHash, key),
        subscriber_id: payload.subscriberId,
        secret_hash: payload.subscriberSecret ? secretHash(payload.subscriberSecret) : undefined,
        new_id: newId,
        new_secret_hash: issued.hash,
        endpoint,
        subscription_id: payload.subscriptionId,
        subscription: payload.subscription,
        p256dh: payload.subscription?.keys?.p256dh,
        auth: payload.subscription?.keys?.auth,
        // the key on the site's ring this push subscription was made with: its pushes are signed with it
        vapid_key_id: endpoint ? vapidKeyId : undefined,
      },
      payload,
    ),
  );
  if (row.result_code === 'E_SYNC_NOT_SUBSCRIBED') return { reply: fail('E_SYNC_NOT_SUBSCRIBED') };
  if (row.result_code !== 'success' || !row.result_id) return { reply: proofFailure(payload, 'subscriberId') };
  const reply: SyncResult = row.result_issued
    ? { status: 'success', subscriberId: row.result_id, subscriberSecret: issued.secret }
    : { status: 'success', subscriberId: row.result_id };
  return action === 'insert' ? { reply, welcomeEnabled: row.result_welcome } : { reply };
}

/**
 * The silent move of a subscription another service's script made (docs/migrating.md): a page without a subscriber
 * of its own names that registration, and its subscriber (an imported one) moves instead of a new one being made.
 */
const silentMove = (payload: SyncPayload) => Boolean(payload.previousSubscriptionId && !payload.subscriberId);

async function insertOrMove(tx: Queryable, siteHash: string, payload: SyncPayload, vapidKeyId?: string): Promise<SyncOutcome> {
  if (!endpointOf(payload) && !payload.subscriptionId) return { reply: fail('E_SYNC_NO_SUBSCRIPTION') };
  if (await findBySubscription(tx, siteHash, undefined, payload.previousSubscriptionId))
    return { reply: await moveRegistration(tx, siteHash, payload, vapidKeyId, true) };
  return storeSubscription(alone(tx), siteHash, payload, vapidKeyId);
}

/** `issueSecret`: the caller is a page that will keep the secret the reply carries, though it named no subscriber. */
async function moveRegistration(
  tx: Queryable,
  siteHash: string,
  payload: SyncPayload,
  vapidKeyId?: string,
  issueSecret = false,
): Promise<SyncResult> {
  if (!payload.previousSubscriptionId) return fail('E_PARAM_MISSING', { param: 'previousSubscriptionId' });
  const endpoint = endpointOf(payload);
  if (!endpoint && !payload.subscriptionId) return fail('E_SYNC_NO_SUBSCRIPTION');
  await lockSubscription(tx, siteHash, payload.previousSubscriptionId);
  // Proof: the secret of the named subscriber; or the previous registration id, which only the browser that
  // held that registration knows (the service worker renewing it has no secret); or, for a repeat, the new
  // subscription already moved.
  const byId = await findById(tx, siteHash, payload.subscriberId);
  const previous = await findBySubscription(tx, siteHash, undefined, payload.previousSubscriptionId);
  const moved = await findBySubscription(tx, siteHash, endpoint, payload.subscriptionId);
  const bySecret = byId && secretMatches(byId.secret_hash, payload.subscriberSecret);
  const subscriber = bySecret
    ? byId
    : previous && (!byId || byId.id === previous.id)
      ? previous
      : moved && (!byId || byId.id === moved.id) && holdsSubscription(moved, payload)
        ? moved
        : undefined;
  if (!subscriber) return byId ? proofFailure(payload, 'subscriberId') : fail('E_SYNC_SUBSCRIPTION_UNKNOWN');
  // A page (it names its subscriber id) that proved the registration instead of the secret gets a new one; the
  // service worker names no id and has nowhere to keep a secret.
  const issue = !bySecret && (issueSecret || Boolean(payload.subscriberId));
  await releaseEndpoint(tx, siteHash, endpoint, subscriber.id);
  await updateSubscriber(tx, subscriber.id, {
    ...subscriptionColumns(payload, vapidKeyId),
    // a new registration without keys (Safari) must not keep the old subscription's keys
    p256dh: payload.subscription?.keys?.p256dh ?? null,
    auth: payload.subscription?.keys?.auth ?? null,
    endpoint: endpoint ?? null,
    ...profileColumns(payload),
    status: 'subscribed',
  });
  await recordEvent(tx, siteHash, subscriber.id, 'registration-moved');
  await subscriberEvent(tx, siteHash, subscriber.id, 'subscriber.updated');
  return succeed(tx, subscriber.id, issue);
}

function findForVisitor(tx: Queryable, siteHash: string, payload: SyncPayload): Promise<SubscriberRow | undefined> {
  return findFirst(tx, siteHash, [
    ['id', payload.subscriberId],
    ['endpoint', endpointOf(payload)],
    ['subscription', payload.subscriptionId],
  ]);
}

/**
 * An http-sync from the browser of the subscriber it names, shown by its secret (the usual case): one UPDATE in a
 * batch, no transaction. The reply httpSync would give, or undefined when this is not that case (no such subscriber
 * by that id, another secret, none stored): then httpSync decides.
 */
async function httpSyncBySecret(run: RunAction, siteHash: string, payload: SyncPayload): Promise<SyncResult | undefined> {
  if (!payload.subscriberId || !payload.subscriberSecret) return undefined;
  const row = await run(
    withVisitFields(
      { action: 'http-sync', site: siteHash, subscriber_id: payload.subscriberId, secret_hash: secretHash(payload.subscriberSecret) },
      payload,
    ),
  );
  return row.result_code === 'success' && row.result_id ? { status: 'success', subscriberId: row.result_id } : undefined;
}

async function httpSync(tx: Queryable, siteHash: string, payload: SyncPayload): Promise<SyncResult> {
  const subscriber = await findForVisitor(tx, siteHash, payload);
  if (!subscriber) return fail('E_SYNC_SUBSCRIBER_UNKNOWN', { param: 'subscriberId' });
  const proof = prove(subscriber, payload, 'subscriberId');
  if (!proof.ok) return proof.failure;
  await updateSubscriber(tx, subscriber.id, profileColumns(payload));
  return succeed(tx, subscriber.id, proof.issue);
}

async function unsubscribe(tx: Queryable, siteHash: string, payload: SyncPayload, kind: string): Promise<SyncResult> {
  const subscriber = await findForVisitor(tx, siteHash, payload);
  if (!subscriber) return fail('E_SYNC_SUBSCRIBER_UNKNOWN', { param: 'subscriberId' });
  const proof = prove(subscriber, payload, 'subscriberId');
  if (!proof.ok) return proof.failure;
  await updateSubscriber(tx, subscriber.id, { status: 'unsubscribed' });
  await recordEvent(tx, siteHash, subscriber.id, kind);
  await subscriberEvent(tx, siteHash, subscriber.id, 'subscriber.unsubscribed');
  return succeed(tx, subscriber.id, proof.issue);
}

async function subscriberIdForVisitor(tx: Queryable, siteHash: string, payload: SyncPayload): Promise<SyncResult> {
  if (!payload.uuid && !payload.subscriptionId && !endpointOf(payload)) {
    return fail('E_SYNC_NO_VISITOR');
  }
  // A uuid is no proof (a link can plant one in any browser): it finds only the subscriber whose secret the
  // request also shows. Otherwise the browser must hold the subscription; anyone else learns nothing.
  if (payload.uuid && payload.subscriberSecret) {
    const { rows } = await tx.query<SubscriberRow>(
      `SELECT ${ROW} FROM subscribers WHERE site_hash = $1 AND (uuid = $2 OR id = $2) ORDER BY (status = 'subscribed') DESC, updated_at DESC LIMIT 100`,
      [siteHash, payload.uuid],
    );
    const proven = rows.find((row) => secretMatches(row.secret_hash, payload.subscriberSecret));
    if (proven) return succeed(tx, proven.id, false);
  }
  const subscriber = await findBySubscription(tx, siteHash, endpointOf(payload), payload.subscriptionId);
  if (subscriber && holdsSubscription(subscriber, payload))
    return succeed(tx, subscriber.id, !secretMatches(subscriber.secret_hash, payload.subscriberSecret));
  return fail('E_SYNC_VISITOR_UNKNOWN');
}

/**
 * The visitor's uuid (`subscriberId`) differs from the stored subscriber id (`previousSubscriberId`): link them,
 * for the browser that shows the stored subscriber's secret only.
 */
async function linkVisitor(tx: Queryable, siteHash: string, payload: SyncPayload): Promise<SyncResult> {
  if (!payload.previousSubscriberId) return fail('E_PARAM_MISSING', { param: 'previousSubscriberId' });
  if (!payload.subscriberId) return fail('E_PARAM_MISSING', { param: 'subscriberId' });
  const subscriber = await findById(tx, siteHash, payload.previousSubscriberId);
  if (!subscriber) return fail('E_SYNC_SUBSCRIBER_UNKNOWN', { param: 'previousSubscriberId' });
  if (!secretMatches(subscriber.secret_hash, payload.subscriberSecret)) return proofFailure(payload, 'previousSubscriberId');
  await updateSubscriber(tx, subscriber.id, { uuid: payload.subscriberId, browser_type: payload.browserType });
  return { status: 'success', subscriberId: subscriber.id };
}

/**
 * A visitor refused permission (push-kit's `block` action): one `block` event, naming the subscriber only when
 * the request proves it is its browser; a uuid is no proof, so it is kept as detail.
 */
async function trackBlock(tx: Queryable, siteHash: string, payload: SyncPayload): Promise<SyncResult> {
  const subscriber = await findById(tx, siteHash, payload.subscriberId);
  const proven = subscriber && secretMatches(subscriber.secret_hash, payload.subscriberSecret) ? subscriber.id : null;
  await tx.query('INSERT INTO events (site_hash, subscriber_id, kind, detail) VALUES ($1, $2, $3, $4)', [
    siteHash,
    proven,
    'block',
    JSON.stringify({ uuid: payload.uuid ?? null, browserType: payload.browserType ?? null }),
  ]);
  await subscriberBlocked(tx, siteHash, proven, payload.browserType ?? null);
  return { status: 'success', subscriberId: proven ?? '' };
}

/**
 * `vapidKeyId`: the ring key the payload's subscription was made with (server/keys/ subscriptionVapidKeyId). Not an
 * async function: an insert's or update's promise is the batch's own, without a second one resolved with it.
 */
export function runSyncAction(db: Database, siteHash: string, payload: SyncPayload, vapidKeyId?: string): Promise<SyncOutcome> {
  const batched = syncBatcher(db).run;
  if (payload.action === 'http-sync') {
    return httpSyncBySecret(batched, siteHash, payload).then((done) =>
      done ? { reply: done } : inTransaction(db, siteHash, payload, vapidKeyId),
    );
  }
  const inserting = payload.action === 'insert' || payload.action === 'insert-failed';
  // one statement, outside any transaction of the provider's
  if (payload.action === 'update' || (inserting && !silentMove(payload))) return storeSubscription(batched, siteHash, payload, vapidKeyId);
  return inTransaction(db, siteHash, payload, vapidKeyId);
}

/** The actions that are not one statement of a batch: a transaction of the provider's. */
function inTransaction(db: Database, siteHash: string, payload: SyncPayload, vapidKeyId?: string): Promise<SyncOutcome> {
  return db.transaction(async (started): Promise<SyncOutcome> => {
    const tx = prepared(started);
    switch (payload.action) {
      case 'insert':
      case 'insert-failed':
        return insertOrMove(tx, siteHash, payload, vapidKeyId);
      case 'update':
        return storeSubscription(alone(tx), siteHash, payload, vapidKeyId);
      case 'update-google-registration-id':
        return { reply: await moveRegistration(tx, siteHash, payload, vapidKeyId) };
      case 'http-sync':
        return { reply: await httpSync(tx, siteHash, payload) };
      case 'unsubscribe-ui':
        return { reply: await unsubscribe(tx, siteHash, payload, 'unsubscribe-ui') };
      case 'unsubscribe-native':
        return { reply: await unsubscribe(tx, siteHash, payload, 'unsubscribe-native') };
      case 'get-subscriberid-from-server':
        return { reply: await subscriberIdForVisitor(tx, siteHash, payload) };
      case 'update-subscriberId':
        return { reply: await linkVisitor(tx, siteHash, payload) };
      case 'block':
        return { reply: await trackBlock(tx, siteHash, payload) };
    }
  });
}
