// A subscription's endpoint is where the provider will POST every notification: one that is not on an allowed
// push service is refused at insert and update (400, nothing stored), so the owner API never lists it and a
// campaign never tries it.
import { ServerError } from '../errors.ts';
import type { PushServiceAllowlist } from '../push/push-services.ts';

import type { SyncPayload } from './sync-payload.ts';

export function requireAllowedPushService(payload: SyncPayload, pushServices: PushServiceAllowlist): void {
  const endpoints: [param: string, endpoint: string | undefined][] = [
    ['subscription', payload.subscription?.endpoint],
    ['subscriptionEndPoint', payload.subscriptionEndPoint],
  ];
  for (const [param, endpoint] of endpoints) {
    if (endpoint !== undefined && !pushServices.allows(endpoint)) {
      throw new ServerError('E_PUSH_SERVICE_FORBIDDEN', { param, origin: new URL(endpoint).origin });
    }
  }
}
