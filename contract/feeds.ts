// A site's RSS/Atom feeds (docs/feeds.md): the owner API's POST /api/v1/sites/:name/feeds body, checked by this
// one schema (the defaults applied), and what the owner API answers of a feed. zod is browser-safe, but runtime/
// and worker/ never import this.
import { z } from 'zod';
import { segmentIdParam } from './text-fields.ts';

export const FEED_MODES = ['each', 'digest'] as const;
export type FeedMode = (typeof FEED_MODES)[number];
/** Minutes between two polls of one feed: at least this, 15 unless asked. */
export const FEED_MIN_INTERVAL_MINUTES = 5;
export const FEED_MAX_INTERVAL_MINUTES = 10_080;
export const FEED_DEFAULT_INTERVAL_MINUTES = 15;
export const FEED_URL_MAX_LENGTH = 2048;
/** The most feeds one site may list. */
export const FEEDS_MAX = 50;

export const feedInputSchema = z.strictObject({
  /** The feed's address: https (http and private addresses only for hosts the provider lists). */
  url: z.string('must be text').min(1, 'must not be empty').max(FEED_URL_MAX_LENGTH, `must be at most ${FEED_URL_MAX_LENGTH} characters`),
  /** Only subscribers in the segment with this sid; absent: every subscriber. */
  segment: z.union([z.int().positive().transform(String), segmentIdParam], { error: 'must be a segment id' }).optional(),
  intervalMinutes: z
    .int('must be a whole number of minutes')
    .min(FEED_MIN_INTERVAL_MINUTES, `must be at least ${FEED_MIN_INTERVAL_MINUTES} minutes`)
    .max(FEED_MAX_INTERVAL_MINUTES, `must be at most ${FEED_MAX_INTERVAL_MINUTES} minutes (a week)`)
    .default(FEED_DEFAULT_INTERVAL_MINUTES),
  /** each: one campaign per new item; digest: one campaign per poll listing the new items. */
  mode: z.enum(FEED_MODES, { error: `must be one of ${FEED_MODES.join(', ')}` }).default('each'),
});

/** What POST sites/:name/feeds takes. */
export type FeedRequest = z.input<typeof feedInputSchema>;
export type FeedInput = z.output<typeof feedInputSchema>;

/** A feed as the owner API answers it. */
export interface Feed {
  feedId: string;
  url: string;
  segment: string | null;
  intervalMinutes: number;
  mode: FeedMode;
  /** ISO times; null until the first poll. */
  lastPolledAt: string | null;
  lastSuccessAt: string | null;
  /** Why the last poll failed (kept until a poll succeeds), and when. */
  lastError: string | null;
  lastErrorAt: string | null;
  nextPollAt: string;
  /** Items seen and items sent (as their own campaign or in a digest). */
  itemsSeen: number;
  itemsSent: number;
  createdAt: string;
  /** Listed in the site config's feeds: changed and removed there, not through the owner API. */
  fromConfig: boolean;
}

export type FeedsReply = { status: 'success'; feeds: Feed[] };
export type FeedReply = { status: 'success'; feed: Feed };
export type FeedRemovedReply = { status: 'success'; feedId: string; removed: true };
