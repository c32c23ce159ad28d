// The feeds' parser and URL rules (server/feeds/): RSS 2.0 and Atom items with their image; a DOCTYPE's entities
// never expanded (no "billion laughs", no external entity); feed URLs https on public addresses unless listed,
// checked again by the connection's own lookup; the --allow-feed-hosts setting's errors.
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../server/feeds/feed-parse.ts';
import { feedUrlPolicy, feedUrlProblem, publicOnlyLookup } from '../../server/feeds/feed-urls.ts';

describe('parseFeed', () => {
  it('reads RSS items: guid, CDATA title, HTML summary as text, link, media image', () => {
    const feed = parseFeed(`<?xml version="1.0"?>
      <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>News &amp; Notes</title><link>https://ex.com/</link>
      <item><title><![CDATA[Hello <b>world</b>]]></title><link>https://ex.com/1?a=1&amp;b=2</link><guid>g-1</guid>
        <description>&lt;p&gt;Fish &amp;amp; chips &#8211; today&lt;/p&gt;</description><media:thumbnail url="https://ex.com/t.jpg"/></item>
      <item><title>Two</title><link>https://ex.com/2</link><enclosure url="https://ex.com/2.png" type="image/png" length="9"/></item>
      <item><title>Audio only</title><guid>g-3</guid><enclosure url="https://ex.com/3.mp3" type="audio/mpeg" length="9"/></item>
      </channel></rss>`);
    expect(feed.title).toBe('News & Notes');
    expect(feed.items).toEqual([
      {
        key: 'g-1',
        title: 'Hello world',
        summary: 'Fish & chips – today',
        link: 'https://ex.com/1?a=1&b=2',
        image: 'https://ex.com/t.jpg',
      },
      { key: 'https://ex.com/2', title: 'Two', summary: '', link: 'https://ex.com/2', image: 'https://ex.com/2.png' },
      { key: 'g-3', title: 'Audio only', summary: '', link: undefined, image: undefined },
    ]);
  });

  it('reads Atom entries: id, the alternate link, summary or content, an image enclosure link', () => {
    const feed = parseFeed(`<feed xmlns="http://www.w3.org/2005/Atom"><title>Atom</title><link rel="self" href="https://a.com/feed"/>
      <link href="https://a.com/"/>
      <entry><id>urn:1</id><title type="html">A &lt;em&gt;1&lt;/em&gt;</title><link rel="alternate" href="https://a.com/1"/>
        <link rel="enclosure" type="image/jpeg" href="https://a.com/1.jpg"/><content type="html">&lt;p&gt;Body&lt;/p&gt;</content></entry>
    </feed>`);
    expect(feed).toEqual({
      title: 'Atom',
      link: 'https://a.com/',
      items: [{ key: 'urn:1', title: 'A 1', summary: 'Body', link: 'https://a.com/1', image: 'https://a.com/1.jpg' }],
    });
  });

  it('never expands a DOCTYPE entity (billion laughs), refuses an external one', () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
      <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>
      <rss version="2.0"><channel><title>T</title><item><title>&d; laughs</title><guid>1</guid></item></channel></rss>`;
    expect(parseFeed(laughs).items[0]!.title).toBe('&d; laughs');
    const external = `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/passwd">]>
      <rss version="2.0"><channel><title>T</title><item><title>&x;</title><guid>1</guid></item></channel></rss>`;
    expect(() => parseFeed(external)).toThrow(/^cannot read the feed: External entities are not supported/);
  });

  it('refuses what is not a feed', () => {
    expect(() => parseFeed('<rss><channel><item><title>half')).toThrow(/^not well-formed XML/);
    expect(() => parseFeed('<html><body>hi</body></html>')).toThrow('neither an RSS 2.0 (<rss>) nor an Atom (<feed>) document');
  });
});

describe('feed URLs', () => {
  const none = feedUrlPolicy('', {});
  it('takes https on public addresses, and http or private ones only for a listed host', () => {
    expect(feedUrlProblem('https://example.com/feed.xml', none)).toBeUndefined();
    expect(feedUrlProblem('http://example.com/feed.xml', none)).toMatch(/^must be an https URL/);
    expect(feedUrlProblem('https://10.1.2.3/feed.xml', none)).toBe(
      '10.1.2.3 is a private address: list it in --allow-feed-hosts to allow it',
    );
    expect(feedUrlProblem('https://[fd00::1]/feed.xml', none)).toMatch(/private address/);
    expect(feedUrlProblem('https://169.254.169.254/latest', none)).toMatch(/private address/);
    expect(feedUrlProblem('https://app.localhost/feed', none)).toMatch(/private address/);
    expect(feedUrlProblem('https://user:pw@example.com/feed', none)).toBe('must not carry a user name or password');
    expect(feedUrlProblem('file:///etc/passwd', none)).toMatch(/^must be an https URL/);
    const listed = feedUrlPolicy('intranet.lan, 10.0.0.7:8080', {});
    expect(feedUrlProblem('http://intranet.lan/feed', listed)).toBeUndefined();
    expect(feedUrlProblem('https://10.0.0.7:8080/feed', listed)).toBeUndefined();
    expect(feedUrlProblem('https://10.0.0.7:9090/feed', listed)).toMatch(/private address/);
    expect(feedUrlPolicy(undefined, { PUSHKIT_ALLOW_FEED_HOSTS: 'intranet.lan' }).allowedHosts.has('intranet.lan')).toBe(true);
    expect(() => feedUrlPolicy('https://intranet.lan/', {})).toThrow('allowed feed hosts: "https://intranet.lan/" is not a host name');
  });

  it("refuses a name resolving to a private address in the connection's own lookup (DNS rebinding)", async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      publicOnlyLookup('localhost', {}, (failure) => resolve(failure)),
    );
    expect(error?.code).toBe('EFEEDADDRESS');
    expect(error?.message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a private address/);
  });
});
