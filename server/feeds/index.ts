// What other parts of the provider use of feeds: the owner routes, the poller start-provider runs, the URL
// policy of the provider's --allow-feed-hosts, and the owner's use cases.
export { feedRoutes } from './routes.ts';
export { FeedPoller, FEED_POLL_MS, type FeedPassCounts, type FeedPollerOptions } from './feed-poller.ts';
export { ALLOW_FEED_HOSTS_ENV, feedUrlPolicy, type FeedUrlPolicy } from './feed-urls.ts';
export { FEED_MAX_BYTES, FEED_TIMEOUT_MS } from './feed-fetch.ts';
export { addSiteFeed, removeSiteFeed, siteFeeds } from './owner-feeds.ts';
export { syncConfigFeeds } from './config-feeds.ts';
