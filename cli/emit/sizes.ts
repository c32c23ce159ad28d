// Raw, gzip (level 9) and brotli (quality 11) sizes of an output file.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export interface FileSizes {
  raw: number;
  gzip: number;
  brotli: number;
}

export function measureSizes(content: string | Uint8Array): FileSizes {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return {
    raw: bytes.byteLength,
    gzip: gzipSync(bytes, { level: 9 }).byteLength,
    brotli: brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength },
    }).byteLength,
  };
}
