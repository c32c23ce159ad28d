// Feeds through the real provider (startProvider, its feed poller driven by hand on the manual clock) and a local
// feed server that adds items, answers 304 to a repeated ETag, and breaks (500, oversize, not XML): a feed's first
// poll sends nothing; each later item goes once as a campaign with its title, summary, link and image; a digest
// feed sends one campaign listing a poll's items; a broken feed shows its error and leaves the others alone; a
// feed URL on a private address is refused unless its host is listed.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Feed } from '../../contract/feeds.ts';
import { useProviderHarness } from '../support/provider-harness.ts';
import { MINUTE } from '../support/manual-clock.ts';
import { SITE_ORIGIN } from '../support/server.ts';
import type { SiteConfig } from '../../config/schema.ts';
import { validateConfig } from '../../config/validate-config.ts';
import { feedUrlPolicy, syncConfigFeeds } from '../../server/feeds/index.ts';
import { feedUrlProblem } from '../../server/feeds/feed-urls.ts';

interface Item {
  guid: string;
  title: string;
  summary?: string;
  link: string;
  image?: string;
}

interface Served {
  kind: 'rss' | 'atom' | 'status500' | 'oversize' | 'invalid' | 'redirect';
  title: string;
  items: Item[];
  /** Bumped on each change: the ETag. */
  version: number;
  requests: IncomingHttpHeaders[];
  answers: number[];
}

const feeds = new Map<string, Served>();

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function documentOf(served: Served): string {
  if (served.kind === 'atom') {
    const entries = served.items
      .map(
        (item) =>
          `<entry><id>${escape(item.guid)}</id><title>${escape(item.title)}</title><link rel="alternate" href="${escape(item.link)}"/>` +
          `<summary type="html">${escape(item.summary ?? '')}</summary></entry>`,
      )
      .join('');
    return `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>${escape(served.title)}</title>${entries}</feed>`;
  }
  const items = served.items
    .map(
      (item) =>
        `<item><title><![CDATA[${item.title}]]></title><link>${escape(item.link)}</link><guid isPermaLink="false">${escape(item.guid)}</guid>` +
        `<description>${escape(item.summary ?? '')}</description>` +
        (item.image ? `<media:content url="${escape(item.image)}" medium="image"/>` : '') +
        `</item>`,
    )
    .join('');
  return (
    `<?xml version="1.0"?><rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>${escape(served.title)}</title>` +
    `<link>${SITE_ORIGIN}/</link>${items}</channel></rss>`
  );
}

let server: Server;
let origin = '';

function serve(path: string, kind: Served['kind'], items: Item[], title = 'Daily News'): Served {
  const served: Served = { kind, title, items, version: 1, requests: [], answers: [] };
  feeds.set(path, served);
  return served;
}

/** Adds items at the top of a feed (newest first, as feeds list them). */
function publish(served: Served, ...items: Item[]): void {
  served.items = [...items.reverse(), ...served.items];
  served.version += 1;
}

const item = (n: number, extra: Partial<Item> = {}): Item => ({
  guid: `item-${n}`,
  title: `Story ${n}`,
  summary: `<p>What happened in story ${n} &amp; why</p>`,
  link: `${SITE_ORIGIN}/story/${n}`,
  ...extra,
});

beforeAll(async () => {
  server = createServer((request, response) => {
    const served = feeds.get(request.url ?? '');
    const answer = (status: number, body = '', headers: Record<string, string> = {}) => {
      served?.answers.push(status);
      response.writeHead(status, headers).end(body);
    };
    if (!served) return answer(404);
    served.requests.push(request.headers);
    if (served.kind === 'status500') return answer(500, 'down');
    if (served.kind === 'redirect') return answer(302, '', { location: `${origin}/news.xml` });
    if (served.kind === 'oversize') {
      // streamed without a Content-Length: the cap counts what arrives
      served.answers.push(200);
      response.writeHead(200, { 'content-type': 'application/rss+xml' });
      response.write('<rss><channel>');
      const chunk = '<item><title>x</title></item>'.repeat(400);
      const more = () => {
        if (response.destroyed || response.writableEnded) return;
        if (response.write(chunk)) setImmediate(more);
        else response.once('drain', more);
      };
      response.on('close', () => response.destroy());
      return more();
    }
    if (served.kind === 'invalid') return answer(200, '<rss><channel><item><title>half', { 'content-type': 'application/rss+xml' });
    const etag = `"v${served.version}"`;
    if (request.headers['if-none-match'] === etag) return answer(304);
    answer(200, documentOf(served), { 'content-type': 'application/rss+xml', etag });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// 127.0.0.1 listed (the local feed server); a 64 KiB cap so that the oversize feed is refused quickly
const harness = useProviderHarness({ rateLimit: false, feeds: { allowHosts: '127.0.0.1', pollMs: 0, maxBytes: 64 * 1024 } });

async function addFeed(body: Record<string, unknown>): Promise<Feed> {
  const added = await harness.owner('POST', '/feeds', body);
  expect(added.statusCode, added.body).toBe(201);
  return (added.json() as { feed: Feed }).feed;
}

async function feedById(id: string): Promise<Feed> {
  const listed = (await harness.owner('GET', '/feeds')).json() as { feeds: Feed[] };
  return listed.feeds.find((feed) => feed.feedId === id)!;
}

/** Moves the clock past the feeds' interval and polls what is due; waits for the campaigns it made. */
async function nextPoll(minutes = 15) {
  harness.clock.advance(minutes * MINUTE);
  const counts = await harness.feeds.runDue();
  await harness.campaigns.idle();
  return counts;
}

describe('feeds', () => {
  // each test polls only its own feeds
  afterEach(async () => {
    for (const feed of ((await harness.owner('GET', '/feeds')).json() as { feeds: Feed[] }).feeds) {
      expect((await harness.owner('DELETE', `/feeds/${feed.feedId}`)).statusCode).toBe(200);
    }
  });

  it('records the items of a first poll, sends each later item once, and honours a 304', async () => {
    const news = serve('/news.xml', 'rss', [item(3), item(2), item(1)]);
    const reader = await harness.subscribe();
    const feed = await addFeed({ url: `${origin}/news.xml` });
    expect(feed).toMatchObject({ intervalMinutes: 15, mode: 'each', segment: null, lastPolledAt: null });

    // first poll: the archive is recorded, nothing is sent
    expect(await harness.feeds.runDue()).toEqual({ polled: 1, failed: 0, campaigns: 0 });
    await harness.campaigns.idle();
    expect(harness.messages(reader.path)).toHaveLength(0);
    expect(await feedById(feed.feedId)).toMatchObject({ itemsSeen: 3, itemsSent: 0, lastError: null });

    // not due again before its interval
    publish(news, item(4, { image: 'https://news.example/img/4.jpg' }));
    expect((await harness.feeds.runDue()).polled).toBe(0);

    // the next poll sends the new item: its title, summary as text, link and image
    expect(await nextPoll()).toEqual({ polled: 1, failed: 0, campaigns: 1 });
    const [message] = harness.messages(reader.path);
    expect(harness.messages(reader.path)).toHaveLength(1);
    expect(message!.notification).toMatchObject({
      title: 'Story 4',
      body: 'What happened in story 4 & why',
      image: 'https://news.example/img/4.jpg',
    });
    const landing = new URL(message!.notification.navigate);
    expect(`${landing.origin}${landing.pathname}`).toBe(`${SITE_ORIGIN}/story/4`);

    // a repeated poll: the feed answers 304 to the ETag it gave, nothing new is sent
    expect(await nextPoll()).toEqual({ polled: 1, failed: 0, campaigns: 0 });
    expect(news.requests.at(-1)!['if-none-match']).toBe(`"v${news.version}"`);
    expect(news.answers.at(-1)).toBe(304);
    // a changed document whose items were all seen sends nothing either
    news.version += 1;
    expect(await nextPoll()).toEqual({ polled: 1, failed: 0, campaigns: 0 });
    expect(news.answers.at(-1)).toBe(200);
    expect(harness.messages(reader.path)).toHaveLength(1);
    expect(await feedById(feed.feedId)).toMatchObject({ itemsSeen: 4, itemsSent: 1, lastError: null });

    const removed = await harness.owner('DELETE', `/feeds/${feed.feedId}`);
    expect(removed.json()).toEqual({ status: 'success', feedId: feed.feedId, removed: true });
    expect((await harness.owner('DELETE', `/feeds/${feed.feedId}`)).json().code).toBe('E_FEED_UNKNOWN');
  });

  it('shows why a broken feed fails, and the other feeds keep sending', async () => {
    const good = serve('/good.atom', 'atom', [item(10)], 'Atom News');
    const reader = await harness.subscribe();
    const broken = [
      await addFeed({ url: `${origin}/status500.xml` }),
      await addFeed({ url: `${origin}/oversize.xml` }),
      await addFeed({ url: `${origin}/invalid.xml` }),
      await addFeed({ url: `${origin}/moved.xml` }),
    ];
    serve('/moved.xml', 'redirect', []);
    serve('/status500.xml', 'status500', []);
    serve('/oversize.xml', 'oversize', []);
    serve('/invalid.xml', 'invalid', []);
    const fine = await addFeed({ url: `${origin}/good.atom` });
    expect(await harness.feeds.runDue()).toEqual({ polled: 5, failed: 4, campaigns: 0 });

    publish(good, item(11, { title: 'Atom story 11' }));
    expect(await nextPoll()).toEqual({ polled: 5, failed: 4, campaigns: 1 });
    expect(harness.messages(reader.path).map((message) => message.notification.title)).toEqual(['Atom story 11']);

    const errors = await Promise.all(broken.map(async (feed) => (await feedById(feed.feedId)).lastError));
    expect(errors[0]).toBe('the feed answered HTTP 500');
    expect(errors[1]).toMatch(/^the feed is larger than 65536 bytes/);
    expect(errors[2]).toMatch(/^not well-formed XML/);
    // a redirect is not followed (its target would escape the URL check): the error names it
    expect(errors[3]).toBe(`the feed answered HTTP 302 to ${origin}/news.xml: use the final URL`);
    for (const feed of broken) {
      const shown = await feedById(feed.feedId);
      expect(shown.lastErrorAt).toBe(shown.lastPolledAt);
      expect(shown).toMatchObject({ lastSuccessAt: null, itemsSeen: 0 });
    }
    expect(await feedById(fine.feedId)).toMatchObject({ lastError: null, itemsSent: 1 });
  });

  it('refuses a feed URL on a private address or not https, unless its host is listed', async () => {
    for (const url of [
      'https://192.168.1.20/feed.xml',
      'https://[::1]/feed.xml',
      'https://localhost:8443/feed.xml',
      'http://news.example/feed.xml',
    ]) {
      const refused = await harness.owner('POST', '/feeds', { url });
      expect(refused.statusCode, url).toBe(400);
      expect(refused.json().code, url).toBe('E_FEED_URL');
    }
    expect((await harness.owner('POST', '/feeds', { url: 'https://10.0.0.1/feed.xml' })).json().message).toBe(
      'url: 10.0.0.1 is a private address: list it in --allow-feed-hosts to allow it',
    );
    const tooOften = await harness.owner('POST', '/feeds', { url: `${origin}/news.xml`, intervalMinutes: 2 });
    expect(tooOften.json().message).toMatch(/^intervalMinutes: must be at least 5 minutes/);
    expect((await harness.owner('POST', '/feeds', { url: `${origin}/news.xml`, segment: 'nobody' })).statusCode).toBe(404);
    expect(((await harness.owner('GET', '/feeds')).json() as { feeds: Feed[] }).feeds).toEqual([]);
  });

  it('sends a digest feed as one campaign listing the new items, to its segment', async () => {
    const digest = serve('/digest.xml', 'rss', [item(20)], 'Evening Digest');
    expect((await harness.owner('POST', '/segments', { sid: 'readers', name: 'Readers' })).statusCode).toBe(201);
    const outsider = await harness.subscribe();
    const feed = await addFeed({ url: `${origin}/digest.xml`, mode: 'digest', segment: 'readers', intervalMinutes: 60 });
    expect(await harness.feeds.runDue()).toMatchObject({ campaigns: 0 });

    publish(digest, item(21), item(22), item(23));
    expect(await nextPoll(60)).toEqual({ polled: 1, failed: 0, campaigns: 1 });
    const campaigns = (await harness.owner('GET', '/campaigns')).json().campaigns as {
      title: string;
      body: string;
      segment: string | null;
    }[];
    expect(campaigns[0]).toMatchObject({ title: 'Evening Digest: 3 new', body: 'Story 23 · Story 22 · Story 21', segment: 'readers' });
    // the segment has no member: the subscriber outside it gets nothing
    expect(harness.messages(outsider.path)).toHaveLength(0);
    expect(await feedById(feed.feedId)).toMatchObject({ itemsSeen: 4, itemsSent: 3 });
  });
});

describe('feeds in the site config', () => {
  const configFeed = (path: string, extra: Partial<SiteConfig['feeds'][number]> = {}) => ({
    url: `${origin}${path}`,
    intervalMinutes: 15,
    mode: 'each' as const,
    ...extra,
  });
  /** Starts the provider again with the site config listing these feeds. */
  const restartWith = async (feedsOf: SiteConfig['feeds']) => {
    await harness.stop();
    harness.site.config.feeds = feedsOf;
    await harness.start();
  };
  const listed = async () => ((await harness.owner('GET', '/feeds')).json() as { feeds: Feed[] }).feeds;

  it('are created when the provider starts, updated and removed with the config, and not removable through the owner API', async () => {
    const press = serve('/press.xml', 'rss', [item(30)], 'Press');
    serve('/weekly.xml', 'rss', [item(40)], 'Weekly');
    const reader = await harness.subscribe();
    try {
      await restartWith([configFeed('/press.xml'), configFeed('/weekly.xml')]);
      const started = await listed();
      expect(started.map(({ url, fromConfig, intervalMinutes }) => ({ url, fromConfig, intervalMinutes }))).toEqual([
        { url: `${origin}/press.xml`, fromConfig: true, intervalMinutes: 15 },
        { url: `${origin}/weekly.xml`, fromConfig: true, intervalMinutes: 15 },
      ]);
      const refused = await harness.owner('DELETE', `/feeds/${started[0]!.feedId}`);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        code: 'E_FEED_FROM_CONFIG',
        message: `id: feed ${started[0]!.feedId} is listed in the site config letters.json: remove it from its feeds there, and it stops when the provider starts again`,
      });
      // a config feed is polled like any other: its first poll records, the next sends
      await harness.feeds.runDue();
      publish(press, item(31, { title: 'Press story 31' }));
      expect(await nextPoll()).toMatchObject({ campaigns: 1 });
      expect(harness.messages(reader.path).map((message) => message.notification.title)).toEqual(['Press story 31']);

      // the config changes: press every 30 minutes, weekly gone
      await restartWith([configFeed('/press.xml', { intervalMinutes: 30 })]);
      const after = () =>
        listed().then((feedsNow) =>
          feedsNow.map(({ feedId, url, intervalMinutes, itemsSent }) => ({ feedId, url, intervalMinutes, itemsSent })),
        );
      const expected = [{ feedId: started[0]!.feedId, url: `${origin}/press.xml`, intervalMinutes: 30, itemsSent: 1 }];
      expect(await after()).toEqual(expected);
      // once per URL: the same config again changes nothing
      await syncConfigFeeds(harness.db, harness.sites, feedUrlPolicy('127.0.0.1'), Date.now());
      expect(await after()).toEqual(expected);
    } finally {
      // the config without feeds: they stop (and the other tests' clean-up finds none it cannot remove)
      await restartWith([]);
    }
    expect(await listed()).toEqual([]);
  });

  it('refuse a feed on a private address, naming the file and field, and are checked by the config schema', async () => {
    const site = { ...harness.site, config: { ...harness.site.config, feeds: [configFeed('/x', { url: 'https://10.0.0.1/feed.xml' })] } };
    await expect(syncConfigFeeds(harness.db, [site], feedUrlPolicy(''), Date.now())).rejects.toThrow(
      'letters.json: feeds.0.url: 10.0.0.1 is a private address: list it in --allow-feed-hosts to allow it',
    );
    // the owner API's rules: an http URL of a host not listed is refused alike
    expect(feedUrlProblem(`${origin}/press.xml`, feedUrlPolicy(''))).toBe(
      'must be an https URL (http only for a host listed in --allow-feed-hosts)',
    );
    const base = {
      hash: 'letters-hash-01',
      companyName: 'Letters',
      origin: SITE_ORIGIN,
      serverSyncUrl: SITE_ORIGIN,
      vapidPublicKey: harness.vapid.publicKey,
    };
    const problems = (feedsOf: unknown) => {
      const checked = validateConfig({ ...base, feeds: feedsOf });
      return checked.ok ? [] : checked.problems.map((problem) => `${problem.path}: ${problem.message}`);
    };
    expect(problems([{ url: 'feed.xml' }])).toEqual(['feeds.0.url: must be an absolute http(s) URL']);
    // what only the provider's --allow-feed-hosts may allow is a warning of push-kit validate
    const warned = validateConfig({ ...base, feeds: [{ url: 'https://10.0.0.7/feed.xml' }, { url: 'http://news.example/feed.xml' }] });
    expect(warned.ok && warned.warnings.map((warning) => `${warning.path}: ${warning.message}`)).toEqual([
      'feeds.0.url: 10.0.0.7 is a private address: the provider refuses it unless push-kit serve --allow-feed-hosts lists 10.0.0.7',
      'feeds.1.url: is http, not https: the provider refuses it unless push-kit serve --allow-feed-hosts lists news.example',
    ]);
    expect(problems([{ url: 'https://news.example/a.xml' }, { url: 'https://news.example/a.xml', mode: 'digest' }])).toEqual([
      'feeds.1.url: is listed twice',
    ]);
    expect(problems([{ url: 'https://news.example/a.xml', intervalMinutes: 1 }])).toEqual([
      'feeds.0.intervalMinutes: must be at least 5 minutes',
    ]);
  });
});
