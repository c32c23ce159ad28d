// The drafts table (migration 29): a site's drafts and templates, and the test_devices table (migration 30): the
// browsers its members registered for test sends.
import type { Queryable } from '../db/database.ts';
import type { DraftInput, DraftKind, DraftUpdate, MessageDraft, TestDevice, TestDeviceInput } from '../../contract/compose.ts';
import { isoTime } from '../db/iso-time.ts';

interface DraftRow {
  id: string;
  kind: DraftKind;
  name: string;
  content: Record<string, unknown>;
  saved_by: string;
  created_at: Date | string;
  updated_at: Date | string;
}

function draftOf(row: DraftRow): MessageDraft {
  return {
    draftId: String(row.id),
    kind: row.kind,
    name: row.name,
    content: row.content,
    savedBy: row.saved_by,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

/** The site's drafts (or templates), the last saved first. */
export async function listDrafts(db: Queryable, siteHash: string, kind: DraftKind | undefined): Promise<MessageDraft[]> {
  const { rows } = await db.query<DraftRow>(
    `SELECT * FROM drafts WHERE site_hash = $1 AND ($2::text IS NULL OR kind = $2) ORDER BY updated_at DESC, id DESC`,
    [siteHash, kind ?? null],
  );
  return rows.map(draftOf);
}

export async function getDraft(db: Queryable, siteHash: string, id: string): Promise<MessageDraft | undefined> {
  const { rows } = await db.query<DraftRow>('SELECT * FROM drafts WHERE site_hash = $1 AND id = $2', [siteHash, id]);
  return rows[0] && draftOf(rows[0]);
}

export async function countDrafts(db: Queryable, siteHash: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM drafts WHERE site_hash = $1', [siteHash]);
  return Number(rows[0]?.n ?? 0);
}

export async function insertDraft(db: Queryable, siteHash: string, input: DraftInput, savedBy: string, now: Date): Promise<MessageDraft> {
  const { rows } = await db.query<DraftRow>(
    `INSERT INTO drafts (site_hash, kind, name, content, saved_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING *`,
    [siteHash, input.kind, input.name, JSON.stringify(input.content), savedBy, now],
  );
  return draftOf(rows[0]!);
}

export async function updateDraft(
  db: Queryable,
  siteHash: string,
  id: string,
  update: DraftUpdate,
  savedBy: string,
  now: Date,
): Promise<MessageDraft | undefined> {
  const { rows } = await db.query<DraftRow>(
    `UPDATE drafts SET name = $3, content = $4, saved_by = $5, updated_at = $6 WHERE site_hash = $1 AND id = $2 RETURNING *`,
    [siteHash, id, update.name, JSON.stringify(update.content), savedBy, now],
  );
  return rows[0] && draftOf(rows[0]);
}

export async function deleteDraft(db: Queryable, siteHash: string, id: string): Promise<boolean> {
  const { rows } = await db.query('DELETE FROM drafts WHERE site_hash = $1 AND id = $2 RETURNING id', [siteHash, id]);
  return rows.length > 0;
}

export interface TestDeviceRow {
  id: string;
  label: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: Date | string;
}

export function testDeviceOf(row: TestDeviceRow): TestDevice {
  return { deviceId: String(row.id), label: row.label, pushService: new URL(row.endpoint).origin, createdAt: isoTime(row.created_at) };
}

export async function listTestDevices(db: Queryable, siteHash: string, memberKey: string): Promise<TestDeviceRow[]> {
  const { rows } = await db.query<TestDeviceRow>('SELECT * FROM test_devices WHERE site_hash = $1 AND member_key = $2 ORDER BY id', [
    siteHash,
    memberKey,
  ]);
  return rows;
}

/** Registers the subscription, or renews the keys and owner of one already registered with that endpoint. */
export async function upsertTestDevice(db: Queryable, siteHash: string, memberKey: string, input: TestDeviceInput): Promise<TestDeviceRow> {
  const { rows } = await db.query<TestDeviceRow>(
    `INSERT INTO test_devices (site_hash, member_key, label, endpoint, p256dh, auth) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (site_hash, endpoint) DO UPDATE SET member_key = $2, label = $3, p256dh = $5, auth = $6 RETURNING *`,
    [siteHash, memberKey, input.label, input.endpoint, input.keys.p256dh, input.keys.auth],
  );
  return rows[0]!;
}

export async function deleteTestDevice(db: Queryable, siteHash: string, memberKey: string, id: string): Promise<boolean> {
  const { rows } = await db.query('DELETE FROM test_devices WHERE site_hash = $1 AND member_key = $2 AND id = $3 RETURNING id', [
    siteHash,
    memberKey,
    id,
  ]);
  return rows.length > 0;
}
