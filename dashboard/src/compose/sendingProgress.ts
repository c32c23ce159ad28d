import type { Campaign } from '../../../contract/owner-api.ts';

export interface SendingProgress {
  /** Nothing is pending any more (sent, failed, expired or cancelled). */
  done: boolean;
  /** Pending messages wait for a time still ahead: a scheduled send, or a time zone not there yet. */
  waiting: boolean;
  heading: string;
}

/** Where a campaign being sent stands; `campaign` is null until its first copy arrives. */
export function sendingProgress(campaign: Campaign | null, now: number): SendingProgress {
  const done = campaign !== null && campaign.pending === 0;
  const waiting = campaign !== null && !done && campaign.nextDueAt !== null && Date.parse(campaign.nextDueAt) > now;
  const heading =
    campaign?.status === 'cancelled'
      ? 'Cancelled'
      : campaign?.status === 'waiting_for_key'
        ? "Waiting for the site's VAPID key"
        : done
          ? 'Sent'
          : waiting
            ? 'Scheduled'
            : 'Sending…';
  return { done, waiting, heading };
}
