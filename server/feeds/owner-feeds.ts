// The owner's use cases of feeds: list, add (its URL checked by the provider's policy, its segment known),
// remove.
import type { Database, Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import { requireSegment } from '../segments/index.ts';
import type { HostedSite } from '../sites.ts';
import { FEEDS_MAX, type Feed, type FeedInput } from '../../contract/feeds.ts';
import { countFeeds, deleteFeed, feedOf, getFeed, insertFeed, listFeeds } from './feed-store.ts';
import { requireFeedUrl, type FeedUrlPolicy } from './feed-urls.ts';

export async function siteFeeds(db: Queryable, site: HostedSite): Promise<Feed[]> {
  return (await listFeeds(db, site.hash)).map(feedOf);
}

export async function addSiteFeed(db: Database, site: HostedSite, input: FeedInput, policy: FeedUrlPolicy, now: number): Promise<Feed> {
  const url = requireFeedUrl(input.url, policy);
  if (input.segment) await requireSegment(db, site, input.segment, 'segment');
  if ((await countFeeds(db, site.hash)) >= FEEDS_MAX) throw new ServerError('E_FEEDS_MAX', { site: site.name, max: FEEDS_MAX });
  const id = await insertFeed(db, site.hash, url, input, now);
  return feedOf((await getFeed(db, site.hash, id))!);
}

export async function removeSiteFeed(db: Database, site: HostedSite, id: string): Promise<void> {
  // the config's feed would come back at the next start: the owner is told where it is listed instead
  if ((await getFeed(db, site.hash, id))?.from_config) throw new ServerError('E_FEED_FROM_CONFIG', { param: 'id', id, file: site.file });
  const removed = await db.transaction((tx) => deleteFeed(tx, site.hash, id));
  if (!removed) throw new ServerError('E_FEED_UNKNOWN', { param: 'id', id, site: site.name });
}
