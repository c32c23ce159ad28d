// `.push-kit/provider.json`: how `send`, `campaigns` and `keys` reach the provider (`serve`, `dev`) that holds the
// embedded database of the same state folder. The provider writes it once it listens and removes it when it stops:
// its URL, its pid, the owner keys' dates of the sites it hosts, and a token made for this run that opens the owner
// API of every site it hosts. Only a key's hash is stored, so the owner key itself cannot be read back; the token
// gives nothing new to whoever can read the file: they can read the database and the VAPID keys beside it anyway.
//
// The command line believes the file only when it is a regular file of this user that nobody else may read or
// change, written by the live process that holds this folder's embedded database, and its URL is an address of
// this machine: a file planted by anyone else (a clone, an unpacked archive, another user) never sends the token,
// a key given with --key or a notification to another host, and one left by a killed provider is ignored.
import { randomBytes } from 'node:crypto';
import { lstat, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import { embeddedDatabaseHolder } from './db/embedded-lock.ts';
import { OPEN_TO_OTHERS } from './db/private-files.ts';
import { embeddedDatabaseDir, providerFile } from './state-paths.ts';

export interface ProviderFile {
  /** Where this machine reaches the provider: `http://127.0.0.1:8787`. */
  url: string;
  pid: number;
  /** A secret made at the provider's start: `Authorization: Bearer <token>` opens every hosted site's owner API. */
  token: string;
  /** The hosted sites' owner keys: when each was made (ISO 8601), null for none. */
  ownerKeys: Record<string, string | null>;
}

/** A new token of the provider file (43 characters of base64url: an owner API bearer). */
export function newProviderToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The URL this machine reaches a provider listening on `host`: the wildcard addresses by loopback. */
export function localProviderUrl(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '') return `http://127.0.0.1:${port}`;
  if (host === '::') return `http://[::1]:${port}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Writes the provider file (0600, whole or not at all) and returns what removes it: only while it is still this
 * process's, so a later provider's file is left alone.
 */
export async function writeProviderFile(stateDir: string, content: ProviderFile): Promise<() => Promise<void>> {
  const file = providerFile(stateDir);
  const draft = `${file}.${process.pid}`;
  // a new file: the mode applies only to a file writeFile creates
  await rm(draft, { force: true });
  await writeFile(draft, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  await rename(draft, file);
  return async () => {
    const current = await readFile(file, 'utf8').catch(() => '');
    if ((JSON.parse(current || '{}') as { token?: unknown }).token === content.token) await rm(file, { force: true });
  };
}

/** Whether `hostname` (as a URL spells it) names this machine: loopback, or an address of one of its interfaces. */
function isThisMachine(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)) return true;
  return Object.values(networkInterfaces()).some((addresses) =>
    (addresses ?? []).some((address) => address.address.toLowerCase() === host),
  );
}

function parsed(text: string): ProviderFile | undefined {
  try {
    const value = JSON.parse(text) as Partial<ProviderFile>;
    if (typeof value.url !== 'string' || typeof value.token !== 'string' || !/^[A-Za-z0-9_-]{32,200}$/.test(value.token)) return undefined;
    if (!Number.isSafeInteger(value.pid) || (value.pid ?? 0) <= 0) return undefined;
    const ownerKeys = value.ownerKeys && typeof value.ownerKeys === 'object' ? value.ownerKeys : {};
    return { url: value.url, pid: value.pid!, token: value.token, ownerKeys };
  } catch {
    return undefined;
  }
}

/** The provider running on the state folder's embedded database, or why there is none to use. */
export type RunningProvider = { provider: ProviderFile; file: string } | { provider?: undefined; file: string; ignored?: string };

/** The provider file, when the command line may believe it (see the top of this file); else why not. */
export async function readRunningProvider(stateDir: string): Promise<RunningProvider> {
  const file = providerFile(stateDir);
  const found = await lstat(file).catch(() => undefined);
  if (!found) return { file };
  const ignored = (why: string): RunningProvider => ({ file, ignored: `${file} is ignored: ${why}` });
  if (!found.isFile()) return ignored('not a regular file');
  if (typeof process.getuid === 'function' && found.uid !== process.getuid()) return ignored('another user owns it');
  if (found.mode & OPEN_TO_OTHERS) return ignored(`others may read or change it (mode ${(found.mode & 0o777).toString(8)})`);
  const content = parsed(await readFile(file, 'utf8').catch(() => ''));
  if (!content) return ignored('it is not what a provider writes');
  const holder = await embeddedDatabaseHolder(embeddedDatabaseDir(stateDir));
  if (holder !== content.pid)
    return ignored(`process ${content.pid} does not hold ${embeddedDatabaseDir(stateDir)} (a provider that stopped)`);
  let url: URL;
  try {
    url = new URL(content.url);
  } catch {
    return ignored(`${content.url} is not a URL`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || !isThisMachine(url.hostname))
    return ignored(`${content.url} is not an address of this machine`);
  return { provider: content, file };
}
