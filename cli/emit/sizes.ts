// Raw, gzip (level 9) and brotli (quality 11) sizes of an output file. Compression runs on libuv's thread
// pool, so the files of a site (and several sites) are measured in parallel; identical content (the same
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
const measured = new Map<string, Promise<FileSizes>>();
const MEMO_LIMIT = 1000;

async function compute(bytes: Buffer): Promise<FileSizes> {
  const [gzipped, brotlied] = await Promise.all([
    gzipAsync(bytes, { level: 9 }),
    brotliAsync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength },
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
