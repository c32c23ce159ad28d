// One conditional GET of a feed: If-None-Match / If-Modified-Since from the last answer, a timeout for the whole
// exchange, at most `maxBytes` of body (a longer one is refused, not cut), no redirects followed (the target
// would escape the URL check), and the connection's own lookup refusing private addresses unless the host is
// listed (feed-urls.ts).
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../push/push-services.ts';
import { feedUrlProblem, isListedHost, publicOnlyLookup, type FeedUrlPolicy } from './feed-urls.ts';

export const FEED_TIMEOUT_MS = 10_000;
export const FEED_MAX_BYTES = 2 * 1024 * 1024;

export interface FetchOptions {
  policy: FeedUrlPolicy;
  etag: string | null;
  lastModified: string | null;
  timeoutMs?: number;
  maxBytes?: number;
  /** Extra certificate authorities (a test's https feed server). */
  ca?: string | Buffer;
}

export type FetchResult = { status: 'not-modified' } | { status: 'ok'; body: string; etag: string | null; lastModified: string | null };

const header = (value: string | string[] | undefined): string | null => {
  const one = Array.isArray(value) ? value[0] : value;
  return one && one.length <= 512 ? one : null;
};

/** Fetches the feed; throws an Error whose message says what went wrong (kept as the feed's last error). */
export function fetchFeed(href: string, options: FetchOptions): Promise<FetchResult> {
  const problem = feedUrlProblem(href, options.policy);
  if (problem) return Promise.reject(new Error(problem));
  const url = new URL(href);
  const listed = isListedHost(url, options.policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!listed && isIP(host) && isPrivateAddress(host)) return Promise.reject(new Error(`${host} is a private address`));
  const maxBytes = options.maxBytes ?? FEED_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? FEED_TIMEOUT_MS;
  const headers: Record<string, string> = {
    accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1',
    'user-agent': 'push-kit-feeds',
  };
  if (options.etag) headers['if-none-match'] = options.etag;
  if (options.lastModified) headers['if-modified-since'] = options.lastModified;
  const get = url.protocol === 'https:' ? https.get : http.get;
  return new Promise((resolveWith, rejectWith) => {
    const timer = setTimeout(() => request.destroy(new Error(`no whole answer within ${timeoutMs} ms`)), timeoutMs);
    const resolve = (result: FetchResult) => {
      clearTimeout(timer);
      resolveWith(result);
    };
    const reject = (error: Error) => {
      clearTimeout(timer);
      rejectWith(error);
    };
    const request = get(url, { headers, lookup: listed ? undefined : publicOnlyLookup, ca: options.ca, agent: false }, (response) => {
      const status = response.statusCode ?? 0;
      if (status === 304) {
        response.resume();
        return resolve({ status: 'not-modified' });
      }
      if (status < 200 || status >= 300) {
        response.resume();
        const location =
          status >= 300 && status < 400 ? ` to ${String(response.headers.location ?? '?').slice(0, 200)}: use the final URL` : '';
        return reject(new Error(`the feed answered HTTP ${status}${location}`));
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        request.destroy();
        return reject(new Error(`the feed is larger than ${maxBytes} bytes (${declared})`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          request.destroy();
          reject(new Error(`the feed is larger than ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () =>
        resolve({
          status: 'ok',
          body: Buffer.concat(chunks).toString('utf8'),
          etag: header(response.headers.etag),
          lastModified: header(response.headers['last-modified']),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', (error) => reject(new Error(error.message.slice(0, 300))));
  });
}
