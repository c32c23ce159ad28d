// Raw, gzip (level 9) and brotli sizes of an output file. Brotli's quality 11 costs about 50 times quality 5
// for a few percent, and was two thirds of a build's time: it is spent on push.js alone, the file every page
// view downloads and whose budget is checked; the files fetched once per install (workers, child window,
// manifest) are measured at quality 5, a usual on-the-fly setting. Compression runs on libuv's thread pool,
// so the files of a site (and several sites) are measured in parallel; identical content (the same
// stylesheet in every site) is measured once per process.
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
export const BROTLI_QUALITY = { pageView: 11, other: 5 } as const;
const measured = new Map<string, Promise<FileSizes>>();
const MEMO_LIMIT = 1000;

async function compute(bytes: Buffer, brotliQuality: number): Promise<FileSizes> {
  const [gzipped, brotlied] = await Promise.all([
    gzipAsync(bytes, { level: 9 }),
    brotliAsync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength },
    }),
  ]);
  return { raw: bytes.byteLength, gzip: gzipped.byteLength, brotli: brotlied.byteLength };
}

/** `perPageView`: the file is downloaded on every page view (push.js), measured at brotli's best. */
export function measureSizes(content: string | Uint8Array, perPageView = false): Promise<FileSizes> {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
  const quality = perPageView ? BROTLI_QUALITY.pageView : BROTLI_QUALITY.other;
  const key = `${quality}:${createHash('sha1').update(bytes).digest('hex')}`;
  let sizes = measured.get(key);
  if (!sizes) {
    if (measured.size >= MEMO_LIMIT) measured.clear();
    sizes = compute(bytes, quality);
    measured.set(key, sizes);
  }
  return sizes;
}
