// The provider's feed loop: every `pollMs` it polls the feeds that are due (one at a time, each at its own
// interval), and sends what is new as campaigns through the campaigns capability. A feed's first successful
// poll only records the items it already has: adding a feed never sends its archive. Items are recorded before
// their campaign is made, so an item goes at most once even if the provider stops in between.
import type { Database } from '../db/database.ts';
import type { Clock } from '../clock.ts';
import { createSiteCampaign, type CampaignQueue } from '../campaigns/index.ts';
import type { HostedSite } from '../sites.ts';
import { CAMPAIGN_BODY_MAX_LENGTH, CAMPAIGN_TITLE_MAX_LENGTH } from '../../contract/campaign-limits.ts';
import { campaignInputSchema, type CampaignInput } from '../../contract/campaign-input.ts';
import { claimDueFeeds, markSent, recordItems, settlePoll, type FeedRow } from './feed-store.ts';
import { fetchFeed } from './feed-fetch.ts';
import { parseFeed, type FeedItem, type ParsedFeed } from './feed-parse.ts';
import type { FeedUrlPolicy } from './feed-urls.ts';

/** Milliseconds between two looks for due feeds. */
export const FEED_POLL_MS = 60_000;
/** The most new items one poll of an `each` feed sends (the rest are recorded, not sent: a feed that rewrote its ids). */
export const FEED_MAX_ITEMS_PER_POLL = 10;

export interface FeedPollerOptions {
  policy: FeedUrlPolicy;
  clock: Clock;
  /** Milliseconds between looks for due feeds; default 60 000; 0: only when `runDue()` is called. */
  pollMs?: number;
  timeoutMs?: number;
  maxBytes?: number;
  /** A test's https feed server certificate. */
  ca?: string | Buffer;
  log?: (line: string) => void;
}

export interface FeedPassCounts {
  polled: number;
  failed: number;
  campaigns: number;
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

export class FeedPoller {
  private pass: Promise<FeedPassCounts> = Promise.resolve({ polled: 0, failed: 0, campaigns: 0 });
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly sitesByHash: Map<string, HostedSite>;

  constructor(
    private readonly db: Database,
    sites: HostedSite[],
    private readonly campaigns: CampaignQueue,
    private readonly options: FeedPollerOptions,
  ) {
    this.sitesByHash = new Map(sites.map((site) => [site.hash, site]));
  }

  start(): void {
    const pollMs = this.options.pollMs ?? FEED_POLL_MS;
    if (pollMs <= 0) return;
    const tick = () => {
      void this.runDue().finally(() => {
        if (!this.closed) this.timer = setTimeout(tick, pollMs).unref();
      });
    };
    this.timer = setTimeout(tick, pollMs).unref();
  }

  /** Polls the feeds due now (after the pass under way, if any); resolves with what this pass did. */
  runDue(): Promise<FeedPassCounts> {
    const next = this.pass.catch(() => undefined).then(() => this.runPass());
    this.pass = next;
    return next;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.pass.catch(() => undefined);
  }

  private async runPass(): Promise<FeedPassCounts> {
    const counts = { polled: 0, failed: 0, campaigns: 0 };
    const due = await claimDueFeeds(this.db, [...this.sitesByHash.keys()], this.options.clock());
    for (const feed of due) {
      if (this.closed) break;
      const site = this.sitesByHash.get(feed.site_hash);
      if (!site) continue;
      counts.polled += 1;
      try {
        counts.campaigns += await this.poll(site, feed);
      } catch (error) {
        counts.failed += 1;
        const message = error instanceof Error ? error.message : String(error);
        await settlePoll(this.db, feed, { now: this.options.clock(), error: message }).catch(() => undefined);
        this.options.log?.(`feed ${feed.id} of ${site.name} (${feed.url}): ${message}`);
      }
    }
    return counts;
  }

  /** One feed: fetched, parsed, its new items sent; resolves with the campaigns made. */
  private async poll(site: HostedSite, feed: FeedRow): Promise<number> {
    const { policy, timeoutMs, maxBytes, ca } = this.options;
    const fetched = await fetchFeed(feed.url, { policy, timeoutMs, maxBytes, ca, etag: feed.etag, lastModified: feed.last_modified });
    if (fetched.status === 'not-modified') {
      await settlePoll(this.db, feed, { now: this.options.clock() });
      return 0;
    }
    const parsed = parseFeed(fetched.body);
    const now = this.options.clock();
    const fresh = await recordItems(
      this.db,
      feed,
      parsed.items.map((item) => item.key),
      now,
    );
    // Feeds list the newest first: send the oldest new item first.
    const items = feed.primed ? parsed.items.filter((item) => fresh.has(item.key)).reverse() : [];
    let made = 0;
    if (items.length > 0) {
      if (feed.mode === 'digest') {
        made += await this.send(site, feed, digestOf(parsed, items), items);
      } else {
        for (const item of items.slice(-FEED_MAX_ITEMS_PER_POLL)) made += await this.send(site, feed, messageOf(item, parsed), [item]);
      }
    }
    await settlePoll(this.db, feed, { now, etag: fetched.etag, lastModified: fetched.lastModified });
    return made;
  }

  private async send(site: HostedSite, feed: FeedRow, message: Message, items: FeedItem[]): Promise<number> {
    const input: CampaignInput = campaignInputSchema.parse({
      ...message,
      ...(feed.segment ? { segment: feed.segment } : {}),
    });
    const created = await createSiteCampaign(this.db, site, input, this.campaigns.now());
    await markSent(
      this.db,
      feed,
      items.map((item) => item.key),
      created.campaignId,
    );
    this.campaigns.enqueue(site.hash, created.campaignId);
    return 1;
  }
}

interface Message {
  title: string;
  body: string;
  url?: string;
  image?: string;
}

const validUrl = (url: string | undefined) => (url && url.length <= 2048 ? url : undefined);

function messageOf(item: FeedItem, feed: ParsedFeed): Message {
  const title = clip(item.title || feed.title || item.summary, CAMPAIGN_TITLE_MAX_LENGTH);
  const body = clip(item.summary || feed.title || item.title, CAMPAIGN_BODY_MAX_LENGTH);
  const url = validUrl(item.link);
  const image = validUrl(item.image);
  return { title, body, ...(url ? { url } : {}), ...(image ? { image } : {}) };
}

/** One campaign listing a poll's new items: the feed's title, the items' titles, a link to the newest one. */
function digestOf(feed: ParsedFeed, items: FeedItem[]): Message {
  const newest = items[items.length - 1]!;
  const title = clip(`${feed.title || 'New'}: ${items.length} new`, CAMPAIGN_TITLE_MAX_LENGTH);
  const body = clip(
    [...items]
      .reverse()
      .map((item) => item.title || item.summary)
      .join(' · '),
    CAMPAIGN_BODY_MAX_LENGTH,
  );
  const url = validUrl(items.length === 1 ? newest.link : (feed.link ?? newest.link));
  const image = validUrl(newest.image);
  return { title, body, ...(url ? { url } : {}), ...(image ? { image } : {}) };
}
