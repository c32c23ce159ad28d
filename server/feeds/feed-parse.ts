// RSS 2.0 and Atom to the items a feed sends: an id (guid or id, else the link), a title, a plain-text summary,
// a link and an image. fast-xml-parser reads the XML without eval and with entity processing off: a DOCTYPE's
// entities are never expanded (no "billion laughs", no external entities); only the five predefined entities and
// character references are decoded, by decodeEntities below.
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export interface FeedItem {
  /** What identifies the item across polls: its guid (RSS) or id (Atom), else its link, else its title. */
  key: string;
  title: string;
  summary: string;
  link: string | undefined;
  image: string | undefined;
}

export interface ParsedFeed {
  title: string;
  link: string | undefined;
  items: FeedItem[];
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ['item', 'entry', 'link', 'enclosure', 'media:content', 'media:thumbnail'].includes(name),
});

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

type Node = unknown;

/** The text of an element: a string, or an object's `#text`. */
function textOf(node: Node): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return textOf(node[0]);
  if (node && typeof node === 'object' && '#text' in node) return textOf((node as Record<string, Node>)['#text']);
  return '';
}

/** Plain text of HTML (an RSS description, an Atom summary): tags dropped, entities decoded, spaces collapsed. */
export function plainText(html: string): string {
  const once = decodeEntities(html);
  // Escaped HTML decodes to HTML: strip tags after decoding, then decode what the tags' text escaped.
  return decodeEntities(once.replace(/<!\[CDATA\[|\]\]>/g, '').replace(/<\/?[a-z!][^>]*>/gi, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

const attr = (node: Node, name: string): string | undefined => {
  if (!node || typeof node !== 'object') return undefined;
  const value = (node as Record<string, Node>)[`@${name}`];
  return typeof value === 'string' && value ? decodeEntities(value) : undefined;
};

const list = (node: Node): Node[] => (Array.isArray(node) ? node : node === undefined ? [] : [node]);

const httpUrl = (value: string | undefined): string | undefined => {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
};

function imageOf(item: Record<string, Node>): string | undefined {
  for (const media of [...list(item['media:content']), ...list(item['media:thumbnail'])]) {
    const medium = attr(media, 'medium');
    const type = attr(media, 'type');
    if (medium === 'image' || type?.startsWith('image/') || (!medium && !type)) {
      const url = httpUrl(attr(media, 'url'));
      if (url) return url;
    }
  }
  for (const enclosure of list(item.enclosure)) {
    if (attr(enclosure, 'type')?.startsWith('image/')) {
      const url = httpUrl(attr(enclosure, 'url'));
      if (url) return url;
    }
  }
  // Atom: <link rel="enclosure" type="image/..." href="...">
  for (const link of list(item.link)) {
    if (attr(link, 'rel') === 'enclosure' && attr(link, 'type')?.startsWith('image/')) {
      const url = httpUrl(attr(link, 'href'));
      if (url) return url;
    }
  }
  return undefined;
}

function atomLink(links: Node): string | undefined {
  const all = list(links);
  const alternate = all.find((link) => (attr(link, 'rel') ?? 'alternate') === 'alternate') ?? all[0];
  return httpUrl(attr(alternate, 'href') ?? decodeEntities(textOf(alternate)));
}

/** Parses an RSS 2.0 or Atom document; throws an Error naming what is wrong. */
export function parseFeed(xml: string): ParsedFeed {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  let doc: Record<string, Node>;
  try {
    doc = parser.parse(xml) as Record<string, Node>;
  } catch (error) {
    throw new Error(`cannot read the feed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const rss = doc.rss as Record<string, Node> | undefined;
  if (rss && typeof rss === 'object') {
    const channel = (rss.channel ?? {}) as Record<string, Node>;
    const items = list(channel.item).map((node) => {
      const item = node as Record<string, Node>;
      const link = httpUrl(decodeEntities(textOf(list(item.link)[0])));
      const title = plainText(textOf(item.title));
      const summary = plainText(textOf(item.description ?? item['content:encoded']));
      const guid = decodeEntities(textOf(item.guid)).trim();
      return { key: guid || link || title, title, summary, link, image: imageOf(item) };
    });
    return { title: plainText(textOf(channel.title)), link: httpUrl(decodeEntities(textOf(list(channel.link)[0]))), items: keyed(items) };
  }
  const feed = doc.feed as Record<string, Node> | undefined;
  if (feed && typeof feed === 'object') {
    const items = list(feed.entry).map((node) => {
      const entry = node as Record<string, Node>;
      const link = atomLink(entry.link);
      const title = plainText(textOf(entry.title));
      const summary = plainText(textOf(entry.summary ?? entry.content));
      const id = decodeEntities(textOf(entry.id)).trim();
      return { key: id || link || title, title, summary, link, image: imageOf(entry) };
    });
    return { title: plainText(textOf(feed.title)), link: atomLink(feed.link), items: keyed(items) };
  }
  throw new Error('neither an RSS 2.0 (<rss>) nor an Atom (<feed>) document');
}

/** Items that can be told apart (a key) and shown (a title or summary), at most 1024 characters of key. */
function keyed(items: FeedItem[]): FeedItem[] {
  return items.filter((item) => item.key && (item.title || item.summary)).map((item) => ({ ...item, key: item.key.slice(0, 1024) }));
}
