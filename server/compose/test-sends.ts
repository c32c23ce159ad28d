// A test send: the composed message, as one variant in one language, to one browser the member registered as a
// test device (the dashboard tab's own push subscription, made on the provider's origin with the site's current
// VAPID key: docs/dashboard.md#test-sends). Sent at once, signed with the site's current key, through the same
// transport and payload as a campaign's deliveries, but nothing is stored: no campaign, no delivery, no figure.
import type { Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import type { HostedSite } from '../sites.ts';
import { deliveryPayload, vapidSubjectOf } from '../campaigns/index.ts';
import { signingKeys } from '../keys/index.ts';
import { sendPush } from '../push/send.ts';
import type { PushServiceAllowlist } from '../push/push-services.ts';
import { TEST_DEVICES_MAX, type TestDevice, type TestDeviceInput, type TestSendInput, type TestSendReply } from '../../contract/compose.ts';
import { deleteTestDevice, listTestDevices, testDeviceOf, upsertTestDevice } from './draft-store.ts';

/** Seconds a push service keeps an undelivered test: a test is wanted now or not at all. */
const TEST_TTL_SECONDS = 300;
/** The notification tag of tests: a second test replaces the first on screen. */
const TEST_TAG = 'pushkit-test';

export interface TestSendContext {
  stateDir: string;
  pushServices: PushServiceAllowlist;
}

export async function memberTestDevices(db: Queryable, site: HostedSite, memberKey: string): Promise<TestDevice[]> {
  return (await listTestDevices(db, site.hash, memberKey)).map(testDeviceOf);
}

export async function addTestDevice(
  db: Queryable,
  site: HostedSite,
  memberKey: string,
  input: TestDeviceInput,
  pushServices: PushServiceAllowlist,
): Promise<TestDevice> {
  if (!pushServices.allows(input.endpoint)) {
    throw new ServerError('E_PUSH_SERVICE_FORBIDDEN', { param: 'endpoint', origin: new URL(input.endpoint).origin });
  }
  const devices = await listTestDevices(db, site.hash, memberKey);
  if (!devices.some((device) => device.endpoint === input.endpoint) && devices.length >= TEST_DEVICES_MAX) {
    throw new ServerError('E_TEST_DEVICES_MAX', { site: site.name, max: TEST_DEVICES_MAX });
  }
  return testDeviceOf(await upsertTestDevice(db, site.hash, memberKey, input));
}

export async function removeTestDevice(db: Queryable, site: HostedSite, memberKey: string, id: string): Promise<void> {
  if (!(await deleteTestDevice(db, site.hash, memberKey, id))) {
    throw new ServerError('E_TEST_DEVICE_UNKNOWN', { param: 'id', id, site: site.name });
  }
}

export async function sendTest(
  db: Queryable,
  site: HostedSite,
  memberKey: string,
  input: TestSendInput,
  context: TestSendContext,
): Promise<Omit<TestSendReply, 'status'>> {
  const device = (await listTestDevices(db, site.hash, memberKey)).find((row) => String(row.id) === input.deviceId);
  if (!device) throw new ServerError('E_TEST_DEVICE_UNKNOWN', { param: 'deviceId', id: input.deviceId, site: site.name });
  const { message } = input;
  const variants = message.variants ?? [];
  if (input.variant !== undefined && input.variant >= variants.length) {
    throw new ServerError('E_TEST_SEND_VARIANT', { param: 'variant', variant: input.variant, count: variants.length });
  }
  const variant = input.variant === undefined ? undefined : variants[input.variant];
  const ring = await signingKeys(context.stateDir, site);
  const vapid = ring.pairs.get(ring.currentId);
  if (!vapid) throw new ServerError('E_TEST_SEND_KEY', { site: site.name, problem: ring.problems.get(ring.currentId) ?? 'no key file' });
  const row = {
    id: 'test',
    campaign_id: 'test',
    title: variant?.title ?? message.title,
    body: variant?.body ?? message.body,
    url: variant?.url ?? message.url ?? null,
    icon: variant?.icon ?? message.icon ?? null,
    image: variant?.image ?? message.image ?? null,
    actions: message.actions ?? null,
    texts: variant?.texts ?? message.texts ?? null,
    language: input.language ?? null,
    tag: TEST_TAG,
    app_badge: null,
    // no click token: a test's click is no one's click
    secret_hash: null,
  };
  const payload = deliveryPayload(row, site.config);
  const result = await sendPush({ endpoint: device.endpoint, keys: { p256dh: device.p256dh, auth: device.auth } }, payload, {
    vapid,
    subject: vapidSubjectOf(site),
    ttl: TEST_TTL_SECONDS,
    urgency: 'high',
    pushServices: context.pushServices,
  });
  // a subscription the push service no longer knows (the browser's data cleared) is of no further use
  if (result.outcome === 'expired') await deleteTestDevice(db, site.hash, memberKey, input.deviceId);
  const title = (JSON.parse(payload) as { notification: { title: string } }).notification.title;
  return {
    deviceId: input.deviceId,
    delivered: result.outcome === 'delivered',
    reason: result.outcome === 'delivered' ? null : result.reason,
    title,
  };
}
