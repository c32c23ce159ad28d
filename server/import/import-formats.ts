// The file formats of an import, read as a stream (memory stays flat whatever the file's size): push-kit's CSV,
// NDJSON of PushSubscriptionJSON (what a `web-push` sender keeps), and OneSignal's subscriptions export. Each
// yields rows by push-kit's column names with their line number; `auto` decides from the first line.
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { parse } from 'csv-parse';
import { ServerError } from '../errors.ts';
import { IMPORT_CSV_OPTIONAL, IMPORT_CSV_REQUIRED, type ImportFormat, type ImportFormatChoice } from '../../contract/imports.ts';
import { rowProblem } from './import-problems.ts';
import type { SourceRow } from './import-rows.ts';

export interface OpenedFile {
  format: ImportFormat;
  ignoredColumns: string[];
  /** The rows, a batch at a time (one promise per batch, not per row: a million rows are read in seconds). */
  rows: AsyncIterable<SourceRow[]>;
}

type Column = keyof Omit<SourceRow, 'line' | 'problem'>;

/**
 * OneSignal's subscriptions export ("Export subscriptions CSV", POST /players/csv_export, documentation.onesignal.com
 * reference/csv-export): `identifier` is the push token (for web push, the subscription's endpoint); the keys come
 * only when the export asks for them, `extra_fields: ["web_auth", "web_p256"]` (its API lists `web_auth` and
 * `web_p256` among the extra fields; migration guides of other services ask for the same two). `device_type` 5 is
 * Chrome-like web push, 8 Firefox, 17 Safari's web push; 7 is Safari's older APNs push, which has no keys.
 * `notification_types` below 0 means unsubscribed; `invalid_identifier` marks a token the push service refused.
 */
const ONESIGNAL_COLUMNS: Record<string, Column> = {
  identifier: 'endpoint',
  web_p256: 'p256dh',
  web_auth: 'auth',
  created_at: 'created_at',
  language: 'language',
  timezone_id: 'timezone',
  tags: 'tags',
  external_user_id: 'external_id',
  external_id: 'external_id',
};
const ONESIGNAL_REQUIRED = ['identifier', 'web_p256', 'web_auth'];
const ONESIGNAL_READ = new Set([...Object.keys(ONESIGNAL_COLUMNS), 'device_type', 'notification_types', 'invalid_identifier']);
const ONESIGNAL_WEB_PUSH = new Set(['5', '8', '17']);

const HEAD_BYTES = 64 * 1024;
const NDJSON_LINE_MAX = 64 * 1024;

/** The input as chunks, counting its bytes. */
async function* counted(input: AsyncIterable<Buffer | string>, onBytes: (bytes: number) => void): AsyncGenerator<Buffer> {
  for await (const chunk of input) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    onBytes(buffer.length);
    yield buffer;
  }
}

/** Reads the first line (or 64 KiB) to decide the format, and gives back a stream of the whole input. */
async function peek(input: AsyncIterable<Buffer>): Promise<{ head: string; stream: Readable }> {
  const iterator = input[Symbol.asyncIterator]();
  const taken: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < HEAD_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    taken.push(next.value);
    size += next.value.length;
    if (next.value.includes(10)) break;
  }
  async function* all(): AsyncGenerator<Buffer> {
    yield* taken;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  const head = Buffer.concat(taken)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  return { head, stream: Readable.from(all(), { objectMode: false }) };
}

function headerNames(head: string): string[] {
  const first = head.split(/\r?\n/)[0] ?? '';
  return first.split(',').map((name) => name.trim().replace(/^"|"$/g, '').trim().toLowerCase());
}

function detect(head: string): ImportFormat {
  const text = head.trimStart();
  if (text === '') throw new ServerError('E_IMPORT_FORMAT', { problem: 'the file is empty' });
  if (text.startsWith('{')) return 'ndjson';
  const names = headerNames(text);
  if (names.includes('web_p256') || names.includes('web_auth') || names.includes('identifier')) return 'onesignal';
  if (names.includes('endpoint')) return 'csv';
  throw new ServerError('E_IMPORT_FORMAT', {
    problem: `cannot tell the format from the first line (${text.split(/\r?\n/)[0]!.slice(0, 80)}): a CSV header naming endpoint, p256dh and auth, OneSignal's export (identifier, web_p256, web_auth) or NDJSON objects are read`,
  });
}

/** What an object-mode stream holds at each turn, as one array: the stream's back-pressure still holds. */
async function* buffered<T>(stream: Readable): AsyncGenerator<T[]> {
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  stream.on('readable', () => wake?.());
  stream.once('end', () => {
    ended = true;
    wake?.();
  });
  stream.once('error', (error) => {
    failure = error;
    wake?.();
  });
  for (;;) {
    const items: T[] = [];
    for (let item = stream.read() as T | null; item !== null; item = stream.read() as T | null) items.push(item);
    if (items.length > 0) {
      yield items;
      continue;
    }
    if (failure !== undefined) throw failure;
    if (ended) return;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
}

/** push-kit's CSV and OneSignal's: a header, then one subscription per record (quoted fields may span lines). */
async function* csvRows(
  stream: Readable,
  format: 'csv' | 'onesignal',
  onHeader: (names: string[]) => string[],
): AsyncGenerator<SourceRow[]> {
  const options = { bom: true, relax_column_count: true, skip_empty_lines: true, info: true, readableHighWaterMark: 4096 };
  const parser = parse(options);
  stream.on('error', (error) => parser.destroy(error));
  stream.pipe(parser);
  let header: string[] | undefined;
  let columns: (Column | undefined)[] = [];
  let deviceType = -1;
  let notificationTypes = -1;
  let invalidIdentifier = -1;
  let lastLine = 1;
  try {
    for await (const records of buffered<{ record: string[]; info: { lines: number } }>(parser)) {
      const rows: SourceRow[] = [];
      for (const { record, info } of records) {
        lastLine = info.lines;
        if (!header) {
          header = record.map((name) => name.trim().toLowerCase());
          onHeader(header);
          columns = header.map((name) =>
            format === 'onesignal' ? ONESIGNAL_COLUMNS[name] : CSV_COLUMNS.has(name) ? (name as Column) : undefined,
          );
          deviceType = header.indexOf('device_type');
          notificationTypes = header.indexOf('notification_types');
          invalidIdentifier = header.indexOf('invalid_identifier');
          continue;
        }
        const row: SourceRow = { line: info.lines };
        if (record.length !== header.length) {
          row.problem = rowProblem('E_ROW_CSV', { problem: `has ${record.length} fields, the header ${header.length}` });
          rows.push(row);
          continue;
        }
        for (let index = 0; index < record.length; index += 1) {
          const column = columns[index];
          if (column) row[column] = record[index];
        }
        if (format === 'onesignal') {
          const device = deviceType >= 0 ? record[deviceType]!.trim() : '';
          if (device !== '' && !ONESIGNAL_WEB_PUSH.has(device)) row.problem = rowProblem('E_ROW_NOT_WEB_PUSH', { deviceType: device });
          const types = notificationTypes >= 0 ? Number(record[notificationTypes]) : Number.NaN;
          if (types < 0) row.status = 'unsubscribed';
          if (invalidIdentifier >= 0 && /^(t|true|1)$/i.test(record[invalidIdentifier]!.trim())) row.status = 'expired';
        }
        rows.push(row);
      }
      if (rows.length > 0) yield rows;
    }
  } catch (error) {
    if (error instanceof ServerError) throw error;
    // a quote never closed, a character where a field must end: nothing after it can be read as rows
    const line = (error as { lines?: number }).lines ?? lastLine + 1;
    const problem = `${(error as Error).message.replace(/^Invalid [^:]*: /, '')}; the file is read no further`;
    yield [{ line, problem: rowProblem('E_ROW_CSV', { problem }) }];
  }
}

const CSV_COLUMNS = new Set<string>([...IMPORT_CSV_REQUIRED, ...IMPORT_CSV_OPTIONAL]);

function csvHeaderCheck(format: 'csv' | 'onesignal', ignored: string[]): (names: string[]) => string[] {
  return (names) => {
    const required = format === 'csv' ? IMPORT_CSV_REQUIRED : ONESIGNAL_REQUIRED;
    const missing = required.filter((name) => !names.includes(name));
    if (missing.length > 0) {
      const hint = format === 'onesignal' ? ' (export with extra_fields ["web_auth", "web_p256"])' : '';
      throw new ServerError('E_IMPORT_FORMAT', {
        problem: `the header has no ${missing.join(', ')} column${missing.length > 1 ? 's' : ''}${hint}`,
      });
    }
    const seen = new Set<string>();
    for (const name of names) {
      if (seen.has(name)) throw new ServerError('E_IMPORT_FORMAT', { problem: `the header names ${name} twice` });
      seen.add(name);
      if (!(format === 'csv' ? CSV_COLUMNS.has(name) : ONESIGNAL_READ.has(name))) ignored.push(name);
    }
    return names;
  };
}

/** One NDJSON line as a row. */
function ndjsonRow(line: number, text: string): SourceRow | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (trimmed.length > NDJSON_LINE_MAX)
    return { line, problem: rowProblem('E_ROW_JSON', { problem: `longer than ${NDJSON_LINE_MAX} characters` }) };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    return { line, problem: rowProblem('E_ROW_JSON', { problem: (error as Error).message.slice(0, 120) }) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { line, problem: rowProblem('E_ROW_JSON', { problem: 'a JSON value that is not an object' }) };
  }
  const object = value as Record<string, unknown>;
  const keys = (typeof object.keys === 'object' && object.keys !== null ? object.keys : {}) as Record<string, unknown>;
  return {
    line,
    endpoint: object.endpoint,
    p256dh: keys.p256dh ?? object.p256dh,
    auth: keys.auth ?? object.auth,
    expirationTime: object.expirationTime,
    created_at: object.created_at ?? object.createdAt,
    language: object.language,
    timezone: object.timezone,
    tags: object.tags,
    segments: object.segments,
    external_id: object.external_id ?? object.externalId,
    status: object.status,
  };
}

/**
 * NDJSON: one PushSubscriptionJSON per line (`{endpoint, expirationTime, keys: {p256dh, auth}}`) plus the CSV's
 * optional fields; the rows of each chunk read as one batch.
 */
async function* ndjsonRows(stream: Readable): AsyncGenerator<SourceRow[]> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let line = 0;
  const rowsOf = (lines: string[]): SourceRow[] => {
    const rows: SourceRow[] = [];
    for (const text of lines) {
      line += 1;
      const row = ndjsonRow(line, line === 1 ? text.replace(/^\uFEFF/, '') : text);
      if (row) rows.push(row);
    }
    return rows;
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const lines = (rest + decoder.write(chunk)).split('\n');
    rest = lines.pop()!;
    // a line past the limit is refused without holding more of it than the limit
    if (rest.length > NDJSON_LINE_MAX * 4) rest = rest.slice(0, NDJSON_LINE_MAX + 1);
    const rows = rowsOf(lines);
    if (rows.length > 0) yield rows;
  }
  const rows = rowsOf([rest + decoder.end()]);
  if (rows.length > 0) yield rows;
}

/**
 * Opens the file in the chosen format (`auto`: by its first line). Throws E_IMPORT_FORMAT when the format
 * cannot be told or the header lacks a required column, before any row is read.
 */
export async function openImportFile(
  input: AsyncIterable<Buffer | string>,
  choice: ImportFormatChoice,
  onBytes: (bytes: number) => void = () => undefined,
): Promise<OpenedFile> {
  const { head, stream } = await peek(counted(input, onBytes));
  const format = choice === 'auto' ? detect(head) : choice;
  const ignoredColumns: string[] = [];
  if (format === 'ndjson') return { format, ignoredColumns, rows: ndjsonRows(stream) };
  // the header is checked now, so that a file that cannot be imported fails before the first batch
  const check = csvHeaderCheck(format, ignoredColumns);
  if (head.trim() === '') throw new ServerError('E_IMPORT_FORMAT', { problem: 'the file is empty' });
  check(headerNames(head.trimStart()));
  ignoredColumns.length = 0;
  return { format, ignoredColumns, rows: csvRows(stream, format, check) };
}
