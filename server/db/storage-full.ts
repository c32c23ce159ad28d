// A full disk (or quota, or a file system turned read-only) is a passing condition for the caller: the
// provider answers 503 with Retry-After, not 500. PostgreSQL reports it as SQLSTATE 53100 (disk_full), as
// does PGlite (PostgreSQL's own code inside); Node's file calls (the embedded database's files, its lock)
// as ENOSPC, EDQUOT or EROFS. The error may come wrapped (E_DATABASE_UNAVAILABLE keeps it as `cause`).
import { causeChain } from '../errors.ts';

const STORAGE_FULL_CODES = new Set(['53100', 'ENOSPC', 'EDQUOT', 'EROFS']);
const STORAGE_FULL_MESSAGE = /No space left on device|Disk quota exceeded|Read-only file system/;

export function isStorageFull(error: unknown): boolean {
  for (const current of causeChain(error)) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && STORAGE_FULL_CODES.has(code)) return true;
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && STORAGE_FULL_MESSAGE.test(message)) return true;
  }
  return false;
}
