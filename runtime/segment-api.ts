// The public segment API (spec sections 5 and 7): add or remove the visitor by segment name.
import type { RuntimeServices } from './services.ts';
import { SEGMENT_ID_PATTERN } from '../contract/ids.ts';
import { answer } from './guard.ts';
import type { AddToSegmentQuery, SegmentBeaconAction, SegmentBeaconQuery } from '../contract/visitor-calls.ts';

type SegmentResult = boolean | -1;
type Callback = (result: SegmentResult) => void;

// The page's callback failing is the page's business (logged); the promise still resolves.
const report: (result: SegmentResult, callback?: Callback) => SegmentResult = answer;

const beacon = (services: RuntimeServices, subscriberId: string, segment: string, action: SegmentBeaconAction): void =>
  services.beacon_(services.site_.serverSyncUrl + '/c.gif', {
    hash: services.site_.hash,
    subscriberId,
    subscriberSecret: services.secret_(),
    subscriptionId: services.subscriptionId_(),
    segment,
    action,
  } satisfies SegmentBeaconQuery);

/** Adds the visitor to the segment named `name`: true, false (bad name or failed call) or -1 (no subscriber id). */
export async function addSubscriberToSegment(services: RuntimeServices, name: string, callback?: Callback): Promise<SegmentResult> {
  if (!name || !SEGMENT_ID_PATTERN.test(name)) return report(false, callback);
  const subscriberId = services.subscriberId_();
  // "Invalid Subscriber Id" (spec section 8): none, or one that is not an id (services.subscriberId_)
  if (!subscriberId) return report(-1, callback);
  beacon(services, subscriberId, name, 'add-segment');
  try {
    await services.get_(services.site_.servicesServerUrl + '/as', {
      id: name,
      customer_hash: services.site_.hash,
      'subscriber_list[]': subscriberId,
      'subscriberSecret[]': services.secret_(),
      customTag: name,
    } satisfies AddToSegmentQuery);
    return report(true, callback);
  } catch {
    return report(false, callback);
  }
}

export const addToSegment = addSubscriberToSegment;

/** Removes the visitor from the segment named `name` (the c.gif remove-segment beacon). */
export async function removeSubscriberFromSegment(services: RuntimeServices, name: string, callback?: Callback): Promise<SegmentResult> {
  if (name && !SEGMENT_ID_PATTERN.test(name)) return report(false, callback);
  const subscriberId = services.subscriberId_();
  if (!subscriberId) return report(-1, callback);
  beacon(services, subscriberId, name, 'remove-segment');
  return report(true, callback);
}
