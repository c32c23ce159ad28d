// Importing subscribers from another service (`push-kit import`, POST sites/:name/imports, the dashboard's
// Import screen): the formats, the report every way of importing answers with, and the limits. Types and
// constants only (docs/migrating.md describes the formats).

/** The file formats an import reads; `auto` decides from the first line. */
export const IMPORT_FORMATS = ['csv', 'ndjson', 'onesignal'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
export const IMPORT_FORMAT_CHOICES = ['auto', ...IMPORT_FORMATS] as const;
export type ImportFormatChoice = (typeof IMPORT_FORMAT_CHOICES)[number];

/** The columns of push-kit's own CSV: the first three are required, the others optional. */
export const IMPORT_CSV_REQUIRED = ['endpoint', 'p256dh', 'auth'] as const;
export const IMPORT_CSV_OPTIONAL = ['created_at', 'language', 'timezone', 'tags', 'segments', 'external_id', 'status'] as const;

/** The problems a report lists (the first ones); the rest are counted in `invalid` only. */
export const IMPORT_PROBLEMS_SHOWN = 100;
/** The largest file the owner API takes in one request (the command line reads any size from disk). */
export const IMPORT_BODY_LIMIT = 1024 * 1024 * 1024;
/** Segments one row may name, and new segments one import may create. */
export const IMPORT_SEGMENTS_PER_ROW = 20;
export const IMPORT_NEW_SEGMENTS_MAX = 100;

/** One refused row: its line in the file (the header is line 1 of a CSV), a code and why. */
export interface ImportProblem {
  line: number;
  code: string;
  reason: string;
}

export interface ImportReport {
  format: ImportFormat;
  /** True when nothing was written: the figures say what an import would do. */
  dryRun: boolean;
  /** Data rows read (a CSV's header and blank lines not counted). */
  rows: number;
  /** New subscribers stored (a dry run: that would be stored). */
  imported: number;
  /** Rows whose endpoint the site already has (or an earlier row of the file had): left as they are. */
  existing: number;
  /** Of those, subscribers whose key the import's VAPID key replaced (the file imported again with its key). */
  rekeyed: number;
  /** Rows refused, each for the reason its problem gives. */
  invalid: number;
  /** The first IMPORT_PROBLEMS_SHOWN problems, in file order. */
  problems: ImportProblem[];
  /** Columns of the header the format does not read. */
  ignoredColumns: string[];
  /** Segments the import created (named by rows, not yet on the site). */
  segmentsCreated: string[];
  /** The id on the site's key ring of the key the imported subscriptions are signed with (`--vapid-key`), or null: the site's current key. */
  vapidKeyId: string | null;
  /** Bytes of the file read. */
  bytes: number;
  durationMs: number;
}

/** POST sites/:name/imports?format=&dryRun= with the file as the body. */
export interface ImportQuery {
  format?: ImportFormatChoice;
  dryRun?: '0' | '1' | 'true' | 'false';
  /** A key already on the site's ring (`push-kit keys vapid`) the file's subscriptions were made with. */
  vapidKeyId?: string;
}

export type ImportReply = { status: 'success'; report: ImportReport };

/** POST sites/:name/imports/vapid-key: the previous service's VAPID key pair (url-safe base64). */
export interface ImportVapidKeyRequest {
  publicKey: string;
  privateKey: string;
}

/** Its id on the site's key ring (the vapidKeyId of an import); `current`: it is the site's current key. */
export type ImportVapidKeyReply = { status: 'success'; keyId: string; current: boolean };
