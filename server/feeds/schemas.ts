// The owner API's feed routes: what they take and what they answer (route-schemas.ts).
import { z } from 'zod';
import { SITE_PARAMS } from '../http/params.ts';
import { isoTime } from '../http/reply-schemas.ts';
import { fieldsOf, successReply } from '../http/route-schemas.ts';
import { FEED_MODES, type Feed } from '../../contract/feeds.ts';

export { feedInputSchema as feedBody } from '../../contract/feeds.ts';

export const feedParams = SITE_PARAMS.extend({ id: z.string().regex(/^\d{1,18}$/, 'must be a feed id (digits)') });

const feed = z.object(
  fieldsOf<Feed>()({
    feedId: z.string(),
    url: z.string(),
    segment: z.string().nullable(),
    intervalMinutes: z.int(),
    mode: z.enum(FEED_MODES),
    lastPolledAt: isoTime.nullable(),
    lastSuccessAt: isoTime.nullable(),
    lastError: z.string().nullable(),
    lastErrorAt: isoTime.nullable(),
    nextPollAt: isoTime,
    itemsSeen: z.int(),
    itemsSent: z.int(),
    createdAt: isoTime,
    fromConfig: z.boolean(),
  }),
);

export const FEEDS_REPLY = successReply({ feeds: z.array(feed) });
export const FEED_REPLY = successReply({ feed });
export const FEED_REMOVED_REPLY = successReply({ feedId: z.string(), removed: z.literal(true) });
