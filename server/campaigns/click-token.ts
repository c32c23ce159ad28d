// A delivery's click token: the delivery id and a MAC over it keyed by the subscriber's stored secret hash.
// It rides on the notification's landing URL (CLICK_PARAM) and in its data, so a click is counted for the
// delivery's subscriber and campaign even when the browser opens the page without the worker. Without the
// subscriber's secret nobody can make one, so a forged or edited token counts nothing, and a token replayed
// counts at most the one click its subscriber may make on its campaign.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CLICK_TOKEN_PATTERN } from '../../contract/ids.ts';

const MAC_BYTES = 16;

function macOf(deliveryId: string, secretHash: string): Buffer {
  return createHmac('sha256', secretHash).update(`click:${deliveryId}`).digest().subarray(0, MAC_BYTES);
}

/** The token of a delivery to a subscriber whose secret hash is `secretHash`. */
export function clickTokenOf(deliveryId: string, secretHash: string): string {
  return `${deliveryId}.${macOf(deliveryId, secretHash).toString('base64url')}`;
}

/** The delivery id a token names, before it is checked; undefined for a token of the wrong shape. */
export function deliveryIdOf(token: string): string | undefined {
  return CLICK_TOKEN_PATTERN.test(token) ? token.slice(0, token.indexOf('.')) : undefined;
}

/** True when the token was made for this delivery and this subscriber's secret hash. */
export function clickTokenMatches(token: string, secretHash: string | null | undefined): boolean {
  const deliveryId = deliveryIdOf(token);
  if (!deliveryId || !secretHash) return false;
  const presented = Buffer.from(token.slice(deliveryId.length + 1), 'base64url');
  const expected = macOf(deliveryId, secretHash);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
