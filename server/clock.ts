// The provider's sense of business time: when an automated message or a scheduled campaign is due. Tests inject
// a clock they move forward, so "five minutes after a subscribe" takes no real minutes. Claim leases, retry
// back-off and database stamps stay on real time: they guard against dead processes, not the calendar.

/** Milliseconds since the epoch, as Date.now gives them. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
