// Which notification reports count: only one for a delivery the push service took (status delivered), made
// within the message's TTL after it was taken. A subscriber anyone can mint (insert needs no proof) gets no
// delivered delivery, since its made-up endpoint is refused by the real push service, so it moves no figure
// of a campaign, an A/B test, an automation or a conversion. The TTL is what a push service keeps a message
// for; a message sent with a TTL under REPORT_WINDOW_MIN_SECONDS is shown at once or never, and its reports
// still count for that long.
import type { Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';

export const REPORT_WINDOW_MIN_SECONDS = 600;
/** How long a report waits for a delivery the sender is posting right now (the push can arrive first). */
const IN_FLIGHT_WAIT_MS = 2000;
const IN_FLIGHT_POLL_MS = 50;

interface DeliveryState {
  status: string;
  in_flight: boolean;
  in_window: boolean;
}

async function deliveryState(db: Queryable, campaignId: string, subscriberId: string): Promise<DeliveryState | undefined> {
  const { rows } = await db.query<DeliveryState>(
    `SELECT d.status, d.claimed_at IS NOT NULL AS in_flight,
            now() <= d.updated_at + make_interval(secs => greatest(c.ttl, $3)) AS in_window
       FROM deliveries d JOIN campaigns c ON c.id = d.campaign_id
      WHERE d.campaign_id = $1 AND d.subscriber_id = $2`,
    [campaignId, subscriberId, REPORT_WINDOW_MIN_SECONDS],
  );
  return rows[0];
}

/** Refuses (403) a report for a delivery that was not delivered, or whose TTL has run out since. */
export async function requireDeliveredReport(db: Queryable, campaignId: string, subscriberId: string): Promise<void> {
  let state = await deliveryState(db, campaignId, subscriberId);
  for (let waited = 0; state?.status === 'pending' && state.in_flight && waited < IN_FLIGHT_WAIT_MS; waited += IN_FLIGHT_POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_POLL_MS));
    state = await deliveryState(db, campaignId, subscriberId);
  }
  if (state?.status !== 'delivered') throw new ServerError('E_NOTIFICATION_NOT_DELIVERED', { campaignId });
  if (!state.in_window) throw new ServerError('E_NOTIFICATION_REPORT_LATE', { campaignId });
}
