// A site's subscriber list as CSV (the owner's export of the list as filtered on screen), read a page at a time
// and written as it goes: id, status, browser, language, time zone, when subscribed and last seen, segments,
// tags. Tags and segments are the visitors' own text: cells are made safe for a spreadsheet (http/csv.ts).
import type { Queryable } from '../db/database.ts';
import { csvLine } from '../http/csv.ts';
import { listSubscribers, type SubscriberQuery } from './subscriber-records.ts';

const HEADER = ['id', 'status', 'browser', 'language', 'time zone', 'subscribed at', 'last seen', 'segments', 'tags'];
/** Rows read per query. */
const PAGE = 1000;

export async function* subscriberCsv(
  db: Queryable,
  siteHash: string,
  query: Omit<SubscriberQuery, 'limit' | 'offset'>,
): AsyncGenerator<string> {
  yield csvLine(HEADER);
  for (let offset = 0; ; offset += PAGE) {
    const page = await listSubscribers(db, siteHash, { ...query, limit: PAGE, offset });
    for (const subscriber of page.subscribers) {
      yield csvLine([
        subscriber.id,
        subscriber.status,
        subscriber.browserType,
        subscriber.language,
        subscriber.timezone,
        subscriber.createdAt,
        subscriber.lastSyncAt,
        subscriber.segments.join(' '),
        Object.entries(subscriber.tags)
          .map(([key, value]) => `${key}=${value}`)
          .join('; '),
      ]);
    }
    if (page.subscribers.length < PAGE) return;
  }
}
