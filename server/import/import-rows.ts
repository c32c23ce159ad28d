// One row of an import file, checked as the sync call checks an insert (server/sync/: the push service
// allowlist, the keys, the language and time zone rules) and as /tags checks tags, plus what only a file
// has (a creation time, a status, segments). A row passes whole or is refused with the first problem found.
import type { PushServiceAllowlist } from '../push/push-services.ts';
import { SUBSCRIBER_STATUSES, type SubscriberStatus } from '../../contract/owner-api.ts';
import { SEGMENT_ID_PATTERN, TAG_KEY_PATTERN, TAG_KEY_RULE, TAG_VALUE_MAX_LENGTH } from '../../contract/ids.ts';
import { IMPORT_SEGMENTS_PER_ROW } from '../../contract/imports.ts';
import { LONE_SURROGATE } from '../../contract/text-fields.ts';
import { MAX_TAGS_PER_SUBSCRIBER } from '../subscribers/index.ts';
import { rowProblem, type RowProblem } from './import-problems.ts';

/** A row as a format reads it: text fields by push-kit's column names (NDJSON may give JSON values). */
export interface SourceRow {
  line: number;
  endpoint?: unknown;
  p256dh?: unknown;
  auth?: unknown;
  expirationTime?: unknown;
  created_at?: unknown;
  language?: unknown;
  timezone?: unknown;
  tags?: unknown;
  segments?: unknown;
  external_id?: unknown;
  status?: unknown;
  /** Set by the format when the row cannot be read at all (bad JSON, a mobile subscription of OneSignal). */
  problem?: RowProblem;
}

/** A checked row, ready to store. */
export interface ImportRow {
  line: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  expirationTime: number | null;
  /** ISO time, or null: now. */
  createdAt: string | null;
  language: string | null;
  timezone: string | null;
  tags: [key: string, value: string][];
  segments: string[];
  externalId: string | null;
  status: SubscriberStatus;
  /** As the runtime derives it (runtime/sync.ts subscriptionIdOf): the endpoint's last segment. */
  subscriptionId: string;
  browserType: string | null;
}

export type CheckedRow = { ok: true; row: ImportRow } | { ok: false; problem: RowProblem };

// the limits of the sync call's parameters (server/sync/sync-payload.ts)
const ENDPOINT_MAX = 1024;
const LANGUAGE = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;
const TIMEZONE = /^[A-Za-z0-9_+\-/]{1,64}$/;
const BASE64 = /^[A-Za-z0-9_+/-]+={0,2}$/;
const EXTERNAL_ID_MAX = 128;
// A P-256 public key in uncompressed form (RFC 8291, section 3.1) and the 16-byte authentication secret.
const P256DH_BYTES = 65;
const AUTH_BYTES = 16;
/** A creation time is believed from 2010 (before web push) to a day ahead of this machine's clock. */
const EARLIEST = Date.UTC(2010, 0, 1);
const DAY_MS = 86_400_000;

/** The browser a push service serves, as the sync call's browserType names it (for the dashboard's figures). */
function browserOf(host: string): string | null {
  if (host === 'fcm.googleapis.com' || host === 'android.googleapis.com' || host === 'jmt17.google.com') return 'chrome';
  if (host.endsWith('push.services.mozilla.com')) return 'firefox';
  if (host.endsWith('.notify.windows.com')) return 'edge';
  if (host === 'web.push.apple.com') return 'safari';
  return null;
}

function subscriptionIdOf(endpoint: string): string {
  const last = endpoint.slice(endpoint.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

const isText = (value: unknown): value is string => typeof value === 'string';
const blank = (value: unknown) => value === undefined || value === null || (isText(value) && value.trim() === '');
const wellFormed = (value: string) => !value.includes('\u0000') && !LONE_SURROGATE.test(value);

class Refused {
  constructor(readonly problem: RowProblem) {}
}
const refuse = (problem: RowProblem): never => {
  throw new Refused(problem);
};

/** Unpadded base64url of exactly 65 bytes starting 0x04 (its first character is then "B"), and of 16 bytes. */
const CANONICAL = { p256dh: /^B[A-Za-z0-9_-]{85}[AEIMQUYcgkosw048]$/, auth: /^[A-Za-z0-9_-]{21}[AQgw]$/ };

function key(column: 'p256dh' | 'auth', value: unknown, bytes: number): string {
  // the form every browser gives: no need to decode it
  if (isText(value) && CANONICAL[column].test(value)) return value;
  if (blank(value)) refuse(rowProblem('E_ROW_MISSING', { column }));
  if (!isText(value) || !BASE64.test(value.trim())) refuse(rowProblem('E_ROW_KEY', { column, problem: 'must be base64url' }));
  const decoded = Buffer.from((value as string).trim(), 'base64url');
  if (decoded.length !== bytes || (column === 'p256dh' && decoded[0] !== 4)) {
    refuse(
      rowProblem('E_ROW_KEY', {
        column,
        problem:
          column === 'p256dh'
            ? `must be an uncompressed P-256 public key (65 bytes starting 0x04), not ${decoded.length} bytes`
            : `must be 16 bytes, not ${decoded.length}`,
      }),
    );
  }
  return decoded.toString('base64url');
}

const HOST = /^https:\/\/([^/?#:@]+)/i;

function endpointOf(value: unknown, pushServices: PushServiceAllowlist): { endpoint: string; host: string } {
  if (blank(value)) refuse(rowProblem('E_ROW_MISSING', { column: 'endpoint' }));
  if (!isText(value)) return refuse(rowProblem('E_ROW_ENDPOINT', { problem: 'must be text' }));
  const endpoint = value.trim();
  if (endpoint.length > ENDPOINT_MAX) refuse(rowProblem('E_ROW_ENDPOINT', { problem: `must be at most ${ENDPOINT_MAX} characters` }));
  // the allowlist parses the URL once; only a refused endpoint is parsed again, to say why
  if (pushServices.allows(endpoint) && wellFormed(endpoint)) return { endpoint, host: HOST.exec(endpoint)?.[1]?.toLowerCase() ?? '' };
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return refuse(rowProblem('E_ROW_ENDPOINT', { problem: 'must be an absolute https URL' }));
  }
  if (!wellFormed(endpoint)) refuse(rowProblem('E_ROW_ENDPOINT', { problem: 'must be well-formed text' }));
  if (!pushServices.allows(endpoint)) {
    refuse(
      url.protocol === 'https:'
        ? rowProblem('E_ROW_PUSH_SERVICE', { origin: url.origin })
        : rowProblem('E_ROW_ENDPOINT', { problem: 'must be an absolute https URL' }),
    );
  }
  return { endpoint, host: url.hostname };
}

function optionalText(column: string, value: unknown, pattern: RegExp, rule: string): string | null {
  if (blank(value)) return null;
  if (!isText(value) || !pattern.test(value.trim())) refuse(rowProblem('E_ROW_FIELD', { column, problem: rule }));
  return (value as string).trim();
}

/** ISO 8601 (a time without a zone is UTC, "UTC" may follow), or Unix seconds or milliseconds. */
function createdAtOf(value: unknown, now: number): string | null {
  if (blank(value)) return null;
  let time = Number.NaN;
  const text = isText(value) ? value.trim() : typeof value === 'number' ? String(value) : '';
  if (/^\d{9,13}(\.\d+)?$/.test(text)) {
    const number = Number(text);
    time = number < 1e11 ? number * 1000 : number;
  } else if (text) {
    const utc = text.replace(/ ?UTC$/, 'Z').replace(/^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(:\d{2}(\.\d+)?)?)$/, '$1T$2Z');
    time = /^\d{4}-\d{2}-\d{2}/.test(utc) ? Date.parse(utc) : Number.NaN;
  }
  if (!Number.isFinite(time)) {
    refuse(rowProblem('E_ROW_FIELD', { column: 'created_at', problem: 'must be an ISO 8601 time or Unix seconds' }));
  }
  if (time < EARLIEST || time > now + DAY_MS) {
    refuse(rowProblem('E_ROW_FIELD', { column: 'created_at', problem: 'must be between 2010 and now' }));
  }
  return new Date(time).toISOString();
}

/** A JSON object, or `k=v;k=v`; values text, numbers or booleans (null: no tag). */
function tagsOf(value: unknown): [string, string][] {
  if (blank(value)) return [];
  let entries: [string, unknown][];
  if (isText(value) && !value.trim().startsWith('{')) {
    entries = value
      .split(';')
      .filter((pair) => pair.trim() !== '')
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at < 0) refuse(rowProblem('E_ROW_TAGS', { problem: `"${pair.trim().slice(0, 40)}" is not key=value` }));
        return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      });
  } else {
    let parsed: unknown = value;
    if (isText(value)) {
      try {
        parsed = JSON.parse(value);
      } catch {
        refuse(rowProblem('E_ROW_TAGS', { problem: 'must be a JSON object or key=value;key=value' }));
      }
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return refuse(rowProblem('E_ROW_TAGS', { problem: 'must be a JSON object or key=value;key=value' }));
    }
    entries = Object.entries(parsed);
  }
  const tags: [string, string][] = [];
  for (const [tagKey, tagValue] of entries) {
    if (!TAG_KEY_PATTERN.test(tagKey)) refuse(rowProblem('E_ROW_TAGS', { problem: `key "${tagKey.slice(0, 70)}" ${TAG_KEY_RULE}` }));
    if (tagValue === null) continue;
    if (typeof tagValue === 'object' || (typeof tagValue === 'number' && !Number.isFinite(tagValue))) {
      refuse(rowProblem('E_ROW_TAGS', { problem: `${tagKey}: a value must be text, a number or a boolean` }));
    }
    const text = String(tagValue);
    if (text.length > TAG_VALUE_MAX_LENGTH || !wellFormed(text)) {
      refuse(
        rowProblem('E_ROW_TAGS', { problem: `${tagKey}: a value must be well-formed text of at most ${TAG_VALUE_MAX_LENGTH} characters` }),
      );
    }
    tags.push([tagKey, text]);
  }
  if (new Set(tags.map(([tagKey]) => tagKey)).size !== tags.length) refuse(rowProblem('E_ROW_TAGS', { problem: 'a key is given twice' }));
  if (tags.length > MAX_TAGS_PER_SUBSCRIBER)
    refuse(rowProblem('E_ROW_TAGS', { problem: `at most ${MAX_TAGS_PER_SUBSCRIBER} tags per subscriber` }));
  return tags;
}

/** Segment ids separated by ";" or ",", or a JSON array of them. */
function segmentsOf(value: unknown): string[] {
  if (blank(value)) return [];
  let sids: unknown[];
  if (Array.isArray(value)) sids = value;
  else if (isText(value) && value.trim().startsWith('[')) {
    try {
      sids = JSON.parse(value) as unknown[];
    } catch {
      sids = [];
    }
    if (!Array.isArray(sids)) sids = [];
  } else if (isText(value))
    sids = value
      .split(/[;,]/)
      .map((sid) => sid.trim())
      .filter(Boolean);
  else return refuse(rowProblem('E_ROW_SEGMENTS', { problem: 'must be segment ids separated by ";" or a JSON array' }));
  const unique = [...new Set(sids.map((sid) => (typeof sid === 'number' ? String(sid) : sid)))];
  for (const sid of unique) {
    if (!isText(sid) || !SEGMENT_ID_PATTERN.test(sid)) refuse(rowProblem('E_ROW_SEGMENT_ID', { sid: String(sid).slice(0, 40) }));
  }
  if (unique.length > IMPORT_SEGMENTS_PER_ROW) refuse(rowProblem('E_ROW_SEGMENTS_MANY'));
  return unique as string[];
}

function statusOf(value: unknown): SubscriberStatus {
  if (blank(value)) return 'subscribed';
  const status = isText(value) ? value.trim().toLowerCase() : '';
  if (!(SUBSCRIBER_STATUSES as readonly string[]).includes(status)) {
    refuse(rowProblem('E_ROW_FIELD', { column: 'status', problem: `must be one of ${SUBSCRIBER_STATUSES.join(', ')}` }));
  }
  return status as SubscriberStatus;
}

function expirationOf(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  const number = typeof value === 'number' ? value : isText(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(number)) refuse(rowProblem('E_ROW_FIELD', { column: 'expirationTime', problem: 'must be a number or null' }));
  return number;
}

function externalIdOf(value: unknown): string | null {
  if (blank(value)) return null;
  const text = typeof value === 'number' ? String(value) : value;
  // eslint-disable-next-line no-control-regex
  if (!isText(text) || text.trim().length > EXTERNAL_ID_MAX || !wellFormed(text) || /[\u0000-\u001f]/.test(text)) {
    refuse(rowProblem('E_ROW_FIELD', { column: 'external_id', problem: `must be text of at most ${EXTERNAL_ID_MAX} characters` }));
  }
  return (text as string).trim();
}

export function checkRow(source: SourceRow, pushServices: PushServiceAllowlist, now = Date.now()): CheckedRow {
  if (source.problem) return { ok: false, problem: source.problem };
  try {
    const { endpoint, host } = endpointOf(source.endpoint, pushServices);
    return {
      ok: true,
      row: {
        line: source.line,
        endpoint,
        p256dh: key('p256dh', source.p256dh, P256DH_BYTES),
        auth: key('auth', source.auth, AUTH_BYTES),
        expirationTime: expirationOf(source.expirationTime),
        createdAt: createdAtOf(source.created_at, now),
        language: optionalText('language', source.language, LANGUAGE, 'must be a language tag such as en-US'),
        timezone: optionalText('timezone', source.timezone, TIMEZONE, 'must be a time zone name such as Europe/Paris'),
        tags: tagsOf(source.tags),
        segments: segmentsOf(source.segments),
        externalId: externalIdOf(source.external_id),
        status: statusOf(source.status),
        subscriptionId: subscriptionIdOf(endpoint),
        browserType: browserOf(host),
      },
    };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, problem: error.problem };
    throw error;
  }
}
