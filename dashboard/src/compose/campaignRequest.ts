import type { CampaignRequest } from '../../../contract/owner-api.ts';
import { displayZone, wallClockToInstant } from '../clock/index.ts';
import { VARIANT_FIELDS, type Draft } from './draft.ts';

/**
 * What the owner API is sent for a draft: texts trimmed, empty optional fields left out. Numbers typed into
 * the A/B test that are empty become NaN, so the input schema reports them rather than a default hiding them.
 */
export function campaignRequestOf(draft: Draft): CampaignRequest & { segment?: string } {
  const optional = (value: string) => (value.trim() ? value.trim() : undefined);
  return {
    title: draft.title.trim(),
    body: draft.body.trim(),
    texts: draft.languages.length
      ? Object.fromEntries(
          draft.languages.map((language) => [language.tag.trim(), { title: language.title.trim(), body: language.body.trim() }]),
        )
      : undefined,
    url: optional(draft.url),
    icon: optional(draft.icon),
    image: optional(draft.image),
    actions: draft.buttons.length
      ? draft.buttons.map((button, index) => ({ action: `button${index + 1}`, title: button.title.trim(), url: optional(button.url) }))
      : undefined,
    segment: draft.audience === 'segment' ? draft.segment : undefined,
    audience: draft.audience === 'audience' ? draft.audienceId : undefined,
    subscriberId: draft.audience === 'subscriber' ? draft.subscriberId.trim() : undefined,
    ttl: draft.ttl,
    urgency: draft.urgency,
    // typed on the owner's clock: read in the dashboard's display zone (clock/), not the machine's
    sendAt: draft.when === 'at' ? wallClockToInstant(draft.sendAt, displayZone())?.toISOString() : undefined,
    localTime: draft.when === 'local' ? draft.localTime : undefined,
    deliverAt: draft.when === 'best-hour' ? 'best-hour' : undefined,
    throttlePerMinute: draft.throttle.trim() === '' ? undefined : Number(draft.throttle),
    ...(draft.abTest
      ? {
          variants: draft.variants.map((variant) =>
            Object.fromEntries(
              VARIANT_FIELDS.map(([field]) => [field, optional(variant[field])]).filter(([, value]) => value !== undefined),
            ),
          ),
          testFraction: draft.testPercent.trim() === '' ? Number.NaN : Number(draft.testPercent) / 100,
          winnerAfterMinutes: draft.winnerAfter.trim() === '' ? Number.NaN : Number(draft.winnerAfter),
        }
      : {}),
  };
}
