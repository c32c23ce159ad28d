// A campaign said in words: its status as the owner filters by it, and when it goes (or went) on the owner's
// clock with UTC beside it, or at a time of day on each subscriber's clock.
import type { Campaign } from '../../../contract/owner-api.ts';
import type { CampaignListStatus } from '../../../contract/campaign-report.ts';
import { formatInstant, formatUtc } from '../clock/index.ts';
import { variantLetter } from '../variantLetter.ts';

/** The list's status of a campaign; waiting_for_key is sending (what is left waits for a key). */
export function listStatusOf(campaign: Campaign): CampaignListStatus {
  switch (campaign.status) {
    case 'scheduled':
      return 'scheduled';
    case 'cancelled':
      return 'cancelled';
    case 'done':
      return campaign.delivered === 0 && campaign.failed + campaign.expired > 0 ? 'failed' : 'sent';
    default:
      return 'sending';
  }
}

export const LIST_STATUS_LABELS: Record<CampaignListStatus, string> = {
  scheduled: 'Scheduled',
  sending: 'Sending',
  sent: 'Sent',
  cancelled: 'Cancelled',
  failed: 'Failed',
};

/** "14:30 (your clock), 13:30 UTC" of an instant, with the dates when they differ from today's. */
export function bothClocks(value: string, zone: string): string {
  return `${formatInstant(value, zone)} (your clock), ${formatUtc(value)}`;
}

/** When the campaign goes or went, in a sentence. */
export function scheduleInWords(campaign: Campaign, zone: string, now = Date.now()): string {
  const past = campaign.status === 'done' || campaign.status === 'cancelled';
  if (campaign.localTime) {
    const from = campaign.sendAt ? `, from ${bothClocks(campaign.sendAt, zone)}` : '';
    return `${past ? 'Went' : 'Goes'} at ${campaign.localTime} on each subscriber's clock${from}.`;
  }
  if (campaign.sendAt) {
    const going = !past && Date.parse(campaign.sendAt) > now;
    return `${going ? 'Goes' : 'Was due'} at ${bothClocks(campaign.sendAt, zone)}.`;
  }
  return `Sent at once when created, ${bothClocks(campaign.createdAt, zone)}.`;
}

/**
 * An A/B test's winner in a sentence that never promises a time already past: the winner and why, or that the
 * clock starts when the test share has been delivered, or when the winner goes.
 */
export function winnerInWords(campaign: Campaign, zone: string, now = Date.now()): string | null {
  if (campaign.winnerAt === null && campaign.winnerVariant === null) return null;
  if (campaign.winnerVariant !== null) {
    const letter = variantLetter(campaign.winnerVariant);
    if (campaign.winnerNote === 'too-few-deliveries')
      return `No winner: too few deliveries (a variant reached nobody). Variant ${letter} went to the rest.`;
    if (campaign.winnerNote === 'too-few-clicks')
      return `No winner: too few clicks (none in the test). Variant ${letter} went to the rest.`;
    return `Variant ${letter} had the best click rate and went to the rest.`;
  }
  if (campaign.status === 'cancelled') return 'Cancelled before a winner was picked.';
  const minutes = campaign.winnerAfterMinutes;
  if (campaign.testDeliveredAt === null && minutes !== null) {
    return `The winner is picked ${minutes} minutes after the test share has been delivered; it has not all gone yet.`;
  }
  if (campaign.winnerAt && Date.parse(campaign.winnerAt) > now) {
    return `The variant with the best click rate goes to the rest at ${bothClocks(campaign.winnerAt, zone)}.`;
  }
  return 'The winner is being picked now.';
}
