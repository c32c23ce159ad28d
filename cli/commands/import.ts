// `push-kit import --site NAME [--format auto|csv|ndjson|onesignal] [--vapid-key FILE] [--dry-run] FILE`: moves
// another service's subscribers into a site (docs/migrating.md). The file is read as a stream into the
// database (server/import/), or sent to the owner API of the provider that holds it (found by itself, or named with
// --provider and the site's owner key: cli/provider-route.ts); a progress
// bar on a terminal, then the report: counts, the first refused rows by line, what a dry run would do.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { cliError, fromServerError } from '../errors.ts';
import { addLegacyVapidKey, currentVapidKeyId, vapidKeyId } from '../../server/keys/index.ts';
import { COMMAND_LINE_MEMBER, recordAudit } from '../../server/http/audit-log.ts';
import { importSubscribers, type ImportProgress } from '../../server/import/index.ts';
import { openProviderDatabase } from '../../server/db/open-provider-database.ts';
import { allowedPushServices } from '../../server/push/push-services.ts';
import { readVapidKeyFile, type VapidKeyPair } from '../../server/push/vapid-keys.ts';
import { siteNamed, type HostedSite } from '../../server/sites.ts';
import { embeddedDatabaseDir, STATE_DIR } from '../../server/state-paths.ts';
import type { ImportFormatChoice, ImportReply, ImportReport, ImportVapidKeyReply } from '../../contract/imports.ts';
import { networkFailureReason, ownerApiClient } from '../owner-api-client.ts';
import { databaseInUseAdvice, routeOf, type Route } from '../provider-route.ts';
import type { FailureReply } from '../../contract/owner-api.ts';

export interface ImportCommandOptions {
  site: string;
  format?: ImportFormatChoice;
  /** A JSON file `{ "publicKey", "privateKey" }`: the previous service's VAPID key pair. */
  vapidKey?: string;
  dryRun?: boolean;
  database?: string;
  /** Import through a running provider's owner API with this key (or PUSHKIT_OWNER_KEY) instead of the database. */
  key?: string;
  provider?: string;
  sites?: string[];
  pushServices?: string;
}

const number = (value: number) => value.toLocaleString('en-US');

function progressLine(progress: ImportProgress, size: number, width = 30): string {
  const share = size > 0 ? Math.min(1, progress.bytes / size) : 1;
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(share * 100)}% ${number(progress.rows)} rows`;
}

/** What the report says, as lines: the counts, the refused rows by line, what else the owner should know. */
export function reportLines(site: string, report: ImportReport): string[] {
  const seconds = (report.durationMs / 1000).toFixed(1);
  const verb = report.dryRun ? 'would be imported' : 'imported';
  const lines = [
    `${site}: ${number(report.rows)} rows read (${report.format}, ${seconds} s): ${number(report.imported)} ${verb}, ` +
      `${number(report.existing)} already there, ${number(report.invalid)} refused`,
  ];
  if (report.rekeyed > 0) {
    lines.push(
      `${number(report.rekeyed)} of those already there ${report.dryRun ? 'would be' : 'are now'} signed with the key ${report.vapidKeyId}`,
    );
  }
  for (const problem of report.problems) lines.push(`  line ${problem.line}: ${problem.reason}`);
  if (report.invalid > report.problems.length) {
    lines.push(
      `  ... and ${number(report.invalid - report.problems.length)} more refused rows (the first ${report.problems.length} are listed)`,
    );
  }
  if (report.segmentsCreated.length > 0) {
    lines.push(`segments ${report.dryRun ? 'to create' : 'created'}: ${report.segmentsCreated.join(', ')}`);
  }
  if (report.ignoredColumns.length > 0) lines.push(`columns not read: ${report.ignoredColumns.join(', ')}`);
  if (report.vapidKeyId) lines.push(`the imported subscriptions are signed with the key ${report.vapidKeyId} of the site's key ring`);
  if (report.dryRun) lines.push('dry run: nothing was written');
  else if (report.invalid > 0) lines.push('fix the refused rows and run the same file again: the rows imported now are not imported twice');
  return lines;
}

async function fileSize(file: string): Promise<number> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a file');
    return info.size;
  } catch (error) {
    throw cliError('E_FILE_READ', { file, reason: (error as Error).message });
  }
}

async function readKeyPair(file: string): Promise<VapidKeyPair> {
  try {
    return await readVapidKeyFile(file);
  } catch (error) {
    throw cliError('E_FILE_READ', {
      file,
      reason: `${(error as Error).message} (a VAPID key file is {"publicKey": "...", "privateKey": "..."})`,
    });
  }
}

/**
 * The key's id on the site's ring: added to it (a 0600 file in .push-kit/keys/) unless this is a dry run; null
 * for the site's current key (what a subscriber without a key id is signed with).
 */
async function ringKey(site: HostedSite, file: string, dryRun: boolean): Promise<string | null> {
  const pair = await readKeyPair(file);
  const id = dryRun ? vapidKeyId(pair.publicKey) : await addLegacyVapidKey(STATE_DIR, site, pair, '--vapid-key');
  if (id === currentVapidKeyId(site)) return null;
  if (!dryRun) console.log(`--vapid-key: the key ${id} is on the key ring of ${site.name} (a legacy key)`);
  return id;
}

/** The pair added to the key ring of a running provider (POST sites/:name/imports/vapid-key); null: its current key. */
async function providerRingKey(site: HostedSite, provider: string, key: string, pair: VapidKeyPair): Promise<string | null> {
  const reply = await ownerApiClient(provider, site.name, key)<ImportVapidKeyReply>('/imports/vapid-key', { method: 'POST', body: pair });
  if (reply.current) return null;
  console.log(`--vapid-key: the key ${reply.keyId} is on the key ring of ${site.name} (a legacy key)`);
  return reply.keyId;
}

function contentTypeOf(file: string, format: ImportFormatChoice): string {
  return format === 'ndjson' || /\.(nd)?jsonl?$/i.test(extname(file)) ? 'application/x-ndjson' : 'text/csv';
}

/** Streams the file to POST sites/:name/imports of a running provider; its reply is the report. */
async function importThroughProvider(
  file: string,
  size: number,
  site: HostedSite,
  provider: string,
  key: string,
  query: Record<string, string>,
  format: ImportFormatChoice,
  onBytes: (bytes: number) => void,
): Promise<ImportReport> {
  const url = `${provider.replace(/\/+$/, '')}/api/v1/sites/${encodeURIComponent(site.name)}/imports?${new URLSearchParams(query)}`;
  async function* body(): AsyncGenerator<Buffer> {
    let sent = 0;
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      sent += chunk.length;
      onBytes(sent);
      yield chunk;
    }
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': contentTypeOf(file, format), 'content-length': String(size) },
      body: body() as unknown as BodyInit,
      duplex: 'half',
    } as RequestInit);
  } catch (error) {
    throw cliError('E_PROVIDER_UNREACHABLE', { provider, reason: networkFailureReason(error, provider) });
  }
  const reply = (await response.json().catch(() => undefined)) as ImportReply | FailureReply | undefined;
  if (!response.ok || reply?.status !== 'success') {
    throw cliError('E_PROVIDER_REFUSED', { reason: (reply as FailureReply | undefined)?.message ?? `HTTP ${response.status}` });
  }
  return reply.report;
}

export async function runImport(file: string, options: ImportCommandOptions): Promise<number> {
  const format = options.format ?? 'auto';
  const dryRun = options.dryRun === true;
  const tty = process.stdout.isTTY === true;
  const size = await fileSize(file);
  let last = 0;
  const draw = (progress: ImportProgress) => {
    if (!tty || Date.now() - last < 100) return;
    last = Date.now();
    process.stdout.write(`\r${progressLine(progress, size)}`);
  };
  let report: ImportReport;
  let route: Route | undefined;
  try {
    const site = await siteNamed(options.site, options.sites);
    route = await routeOf(site.name, options, async () => site.config.serverSyncUrl);
    if (route.via === 'provider') {
      const { url: provider, key: ownerKey } = route;
      // the provider keeps the key ring (its state folder): the pair goes to it, and a dry run only names its id
      let keyId: string | null = null;
      if (options.vapidKey !== undefined) {
        const pair = await readKeyPair(options.vapidKey);
        if (dryRun) console.log(`--vapid-key: the key ${vapidKeyId(pair.publicKey)} would join the key ring of ${site.name}`);
        else keyId = await providerRingKey(site, provider, ownerKey, pair);
      }
      const query: Record<string, string> = { format, dryRun: dryRun ? '1' : '0', ...(keyId ? { vapidKeyId: keyId } : {}) };
      report = await importThroughProvider(file, size, site, provider, ownerKey, query, format, (bytes) =>
        draw({ bytes, rows: 0, imported: 0, existing: 0, rekeyed: 0, invalid: 0 }),
      );
    } else {
      const keyId = options.vapidKey === undefined ? null : await ringKey(site, options.vapidKey, dryRun);
      const db = await openProviderDatabase(route.database, embeddedDatabaseDir(STATE_DIR));
      try {
        report = await importSubscribers(db, createReadStream(file), {
          site,
          format,
          dryRun,
          pushServices: allowedPushServices(options.pushServices),
          vapidKeyId: keyId,
          onProgress: draw,
        });
        // straight on the database: the audit log names the command line (docs/members.md)
        if (!dryRun) await recordAudit(db, site.hash, COMMAND_LINE_MEMBER, 'import', file);
      } finally {
        await db.close();
      }
    }
  } catch (error) {
    if (tty && last > 0) process.stdout.write('\n');
    fromServerError(error, route && { databaseInUse: databaseInUseAdvice(route, `push-kit import --site ${options.site} ... ${file}`) });
  }
  if (tty && last > 0) process.stdout.write(`\r${progressLine({ ...report, bytes: size }, size)}\n`);
  for (const line of reportLines(options.site, report)) console.log(line);
  return report.invalid > 0 ? 1 : 0;
}
