// The Urgency header of a push message (RFC 8030 section 5.3): what a campaign may ask for. The owner API
// and `push-kit send` accept these, the sender passes them on, the dashboard offers them.
export const URGENCIES = ['very-low', 'low', 'normal', 'high'] as const;
export type Urgency = (typeof URGENCIES)[number];

export const DEFAULT_URGENCY: Urgency = 'normal';
