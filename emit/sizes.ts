// Raw, gzip (level 9) and brotli (quality 5) sizes of an output file, for report.json. Quality 5 is what a
// CDN or web server compressing on the fly uses (nginx's default is 6, Cloudflare's 4): what most visitors
// download. Quality 11, for files compressed ahead of time, found 7% fewer bytes in push.js (calligraphy:
// 8,314 against 8,920) for 40 times the time: 32 ms a site, half of a build's CPU; bench/embed-weight.ts
// reports it. Compression runs on libuv's thread pool, so the files of a site (and several sites) are
// measured in parallel; identical content (the same stylesheet in every site) is measured once per process.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

export interface FileSizes {
  raw: number;
  gzip: number;
  brotli: number;
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
export const BROTLI_QUALITY = 5;
const measured = new Map<string, Promise<FileSizes>>();
const MEMO_LIMIT = 1000;

async function compute(bytes: Buffer): Promise<FileSizes> {
  const [gzipped, brotlied] = await Promise.all([
    gzipAsync(bytes, { level: 9 }),
    brotliAsync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength },
    }),
  ]);
  return { raw: bytes.byteLength, gzip: gzipped.byteLength, brotli: brotlied.byteLength };
}

export function measureSizes(content: string | Uint8Array): Promise<FileSizes> {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
  const key = createHash('sha1').update(bytes).digest('hex');
  let sizes = measured.get(key);
  if (!sizes) {
    if (measured.size >= MEMO_LIMIT) measured.clear();
    sizes = compute(bytes);
    measured.set(key, sizes);
  }
  return sizes;
}
