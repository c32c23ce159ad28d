// A site's campaign guardrails (its config's campaignGuardrails), as one decision per delivery: send now,
// wait for the subscriber's quiet hours to end, drop a message whose TTL runs out first, or skip a
// subscriber who already had the most notifications the site allows. The sender consults it for every
// delivery it claims; anything else that sends to a subscriber (automations) asks it the same way.
import type { SiteConfig } from '../../config/schema.ts';
import { zoneOffsetMinutes, type SubscriberZone } from './local-time.ts';

export type CampaignGuardrails = SiteConfig['campaignGuardrails'];

/** The window a frequency cap counts over. */
export const CAP_WINDOW_MS = { day: 86_400_000, week: 7 * 86_400_000 } as const;

export interface DeliveryCircumstances {
  /** The time the decision is for (ms). */
  now: number;
  zone: SubscriberZone;
  /** How long the message may wait, in seconds (the campaign's TTL). */
  ttlSeconds: number;
  /** Notifications delivered to the subscriber within the cap's window (CAP_WINDOW_MS[cap.per]) before now. */
  recentDeliveries: number;
}

export type GuardrailVerdict =
  { action: 'send' } | { action: 'wait'; until: number } | { action: 'drop'; reason: string } | { action: 'cap'; reason: string };

const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/** When the quiet hours that hold `now` end (ms), or undefined when the subscriber's clock is outside them. */
export function quietHoursEnd(quietHours: { start: string; end: string }, zone: SubscriberZone, now: number): number | undefined {
  const start = minutesOf(quietHours.start);
  const end = minutesOf(quietHours.end);
  if (start === end) return undefined;
  const offset = zoneOffsetMinutes(zone, now);
  const local = now + offset * 60_000;
  const minuteOfDay = Math.floor((local % 86_400_000) / 60_000);
  const quiet = start < end ? minuteOfDay >= start && minuteOfDay < end : minuteOfDay >= start || minuteOfDay < end;
  if (!quiet) return undefined;
  const midnight = local - (local % 86_400_000);
  const endLocal = midnight + end * 60_000 + (minuteOfDay >= end ? 86_400_000 : 0);
  // the end read on the subscriber's clock, back to an instant (the offset at the end, across a DST change)
  return endLocal - zoneOffsetMinutes(zone, endLocal - offset * 60_000) * 60_000;
}

export function guardrailVerdict(guardrails: CampaignGuardrails | undefined, delivery: DeliveryCircumstances): GuardrailVerdict {
  const cap = guardrails?.frequencyCap;
  if (cap && delivery.recentDeliveries >= cap.max) {
    return { action: 'cap', reason: `frequency cap: ${cap.max} per ${cap.per} reached` };
  }
  const quiet = guardrails?.quietHours;
  const until = quiet ? quietHoursEnd(quiet, delivery.zone, delivery.now) : undefined;
  if (until === undefined) return { action: 'send' };
  if (until - delivery.now > delivery.ttlSeconds * 1000) {
    return { action: 'drop', reason: `quiet hours until ${quiet!.end} outlast the TTL of ${delivery.ttlSeconds} s` };
  }
  return { action: 'wait', until };
}
