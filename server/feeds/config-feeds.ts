// Feeds listed in a site config (`feeds`, docs/feeds.md): when the provider starts, each listed feed is created or
// updated by its URL (a feed the owner API added with that URL is taken over), marked as the config's, and a
// config feed no longer listed is removed, which stops it. The owner API cannot remove a config feed: the config
// would bring it back at the next start, so it says where to remove it instead. Every URL is checked by the
// provider's policy first (https, no private address unless --allow-feed-hosts lists the host): one that is not
// allowed stops the start with the config file and field named, and nothing is written.
import type { Database } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import type { HostedSite } from '../sites.ts';
import { feedUrlProblem, type FeedUrlPolicy } from './feed-urls.ts';

/** Creates, updates and removes the sites' config feeds; resolves with how many are listed in all. */
export async function syncConfigFeeds(db: Database, sites: readonly HostedSite[], policy: FeedUrlPolicy, now: number): Promise<number> {
  for (const site of sites) {
    site.config.feeds.forEach((feed, index) => {
      const problem = feedUrlProblem(feed.url, policy);
      if (problem) throw new ServerError('E_CONFIG_FEED', { file: site.file, path: `feeds.${index}.url`, problem });
    });
  }
  let listed = 0;
  for (const site of sites) {
    const feeds = site.config.feeds.map((feed) => ({ ...feed, url: new URL(feed.url).href }));
    listed += feeds.length;
    await db.transaction(async (tx) => {
      // two providers starting together on one database: one at a time per site, so a URL is added once
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`push-kit config feeds ${site.hash}`]);
      const urls = feeds.map((feed) => feed.url);
      await tx.query(
        'DELETE FROM feed_items i USING feeds f WHERE f.site_hash = $1 AND f.from_config AND NOT (f.url = ANY($2::text[])) AND i.site_hash = f.site_hash AND i.feed_id = f.id',
        [site.hash, urls],
      );
      await tx.query('DELETE FROM feeds WHERE site_hash = $1 AND from_config AND NOT (url = ANY($2::text[]))', [site.hash, urls]);
      for (const feed of feeds) {
        const updated = await tx.query(
          `UPDATE feeds SET segment = $3, interval_minutes = $4, mode = $5, from_config = true WHERE site_hash = $1 AND url = $2 RETURNING id`,
          [site.hash, feed.url, feed.segment ?? null, feed.intervalMinutes, feed.mode],
        );
        if (updated.rows.length > 0) continue;
        await tx.query(
          `INSERT INTO feeds (site_hash, url, segment, interval_minutes, mode, next_poll_at, from_config) VALUES ($1, $2, $3, $4, $5, $6, true)`,
          [site.hash, feed.url, feed.segment ?? null, feed.intervalMinutes, feed.mode, new Date(now)],
        );
      }
    });
  }
  return listed;
}
