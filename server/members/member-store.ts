// A site's team (docs/members.md): members, each with a role and their own key, or a one-time sign-in link that
// the dashboard trades for a key. Only SHA-256 hashes of keys and links are stored; a key is shown once, when it
// is made. A removed member's key opens nothing from the next request on: every owner API call looks it up.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import { FIRST_OWNER_ID, hashOwnerKey, newOwnerKey } from '../http/owner-keys.ts';
import type { SiteRegistry } from '../http/site-access.ts';
import type { HostedSite } from '../sites.ts';
import {
  MAX_AUDIT_PAGE,
  type AuditEntry,
  type Member,
  type MemberRequest,
  type Role,
  type SignedInMember,
} from '../../contract/members.ts';
import { isoTime } from '../db/iso-time.ts';

/** The most members one site may have. */
export const MAX_MEMBERS = 100;
/** How long a sign-in link works, unused. */
export const SIGN_IN_LINK_HOURS = 72;

interface MemberRow {
  id: string;
  name: string;
  role: Role;
  key_hash: string | null;
  link_expires_at: Date | string | null;
  created_at: Date | string;
}

const COLUMNS = 'id, name, role, key_hash, link_expires_at, created_at';

function memberOf(row: MemberRow): Member {
  return {
    memberId: row.id,
    name: row.name,
    role: row.role,
    hasKey: row.key_hash !== null,
    linkExpiresAt: row.key_hash === null && row.link_expires_at ? isoTime(row.link_expires_at) : null,
    createdAt: isoTime(row.created_at),
  };
}

/** A sign-in link's token: `pl_` and 43 characters, only its hash stored. */
function newSignInToken(): string {
  return `pl_${randomBytes(32).toString('base64url')}`;
}

export async function siteMembers(db: Queryable, site: HostedSite): Promise<Member[]> {
  const { rows } = await db.query<MemberRow>(`SELECT ${COLUMNS} FROM site_members WHERE site_hash = $1 ORDER BY created_at, id`, [
    site.hash,
  ]);
  return rows.map(memberOf);
}

async function requireMemberRow(db: Queryable, site: HostedSite, id: string): Promise<MemberRow> {
  const { rows } = await db.query<MemberRow>(`SELECT ${COLUMNS} FROM site_members WHERE site_hash = $1 AND id = $2`, [site.hash, id]);
  if (!rows[0]) throw new ServerError('E_TEAM_MEMBER_UNKNOWN', { param: 'id', id, site: site.name });
  return rows[0];
}

/** A new member with a key (returned, the only time it is readable) or, with `link`, a sign-in link's token. */
export async function addSiteMember(
  db: Queryable,
  site: HostedSite,
  request: MemberRequest,
): Promise<{ member: Member; key: string | null; signInToken: string | null }> {
  const { rows: counted } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM site_members WHERE site_hash = $1', [
    site.hash,
  ]);
  if (counted[0]!.count >= MAX_MEMBERS) throw new ServerError('E_MEMBERS_MAX', { site: site.name, max: MAX_MEMBERS });
  const id = `m_${randomBytes(6).toString('base64url').replace(/[-_]/g, 'x')}`;
  const key = request.link ? null : newOwnerKey();
  const signInToken = request.link ? newSignInToken() : null;
  const { rows } = await db.query<MemberRow>(
    `INSERT INTO site_members (site_hash, id, name, role, key_hash, link_hash, link_expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $6::text IS NULL THEN NULL ELSE now() + make_interval(hours => $7) END)
     RETURNING ${COLUMNS}`,
    [site.hash, id, request.name, request.role, key && hashOwnerKey(key), signInToken && hashOwnerKey(signInToken), SIGN_IN_LINK_HOURS],
  );
  return { member: memberOf(rows[0]!), key, signInToken };
}

/** Refuses a change that leaves the site without an owner member (the provider token is no member). */
async function keepAnOwner(db: Queryable, site: HostedSite, id: string): Promise<void> {
  const { rows } = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM site_members WHERE site_hash = $1 AND role = 'owner' AND id <> $2`,
    [site.hash, id],
  );
  if (rows[0]!.count === 0) throw new ServerError('E_MEMBER_LAST_OWNER', { site: site.name });
}

export async function setSiteMemberRole(db: Queryable, site: HostedSite, id: string, role: Role): Promise<Member> {
  const current = await requireMemberRow(db, site, id);
  if (current.role === 'owner' && role !== 'owner') await keepAnOwner(db, site, id);
  const { rows } = await db.query<MemberRow>(`UPDATE site_members SET role = $3 WHERE site_hash = $1 AND id = $2 RETURNING ${COLUMNS}`, [
    site.hash,
    id,
    role,
  ]);
  return memberOf(rows[0]!);
}

/** Removes the member: their key is refused from the next request on. */
export async function removeSiteMember(db: Queryable, site: HostedSite, id: string): Promise<void> {
  const current = await requireMemberRow(db, site, id);
  if (current.role === 'owner') await keepAnOwner(db, site, id);
  await db.query('DELETE FROM site_members WHERE site_hash = $1 AND id = $2', [site.hash, id]);
}

/** A new key for the member (a lost or leaked one), returned once; their previous key and any link stop working. */
export async function newSiteMemberKey(db: Queryable, site: HostedSite, id: string): Promise<{ member: Member; key: string }> {
  await requireMemberRow(db, site, id);
  const key = newOwnerKey();
  const { rows } = await db.query<MemberRow>(
    `UPDATE site_members SET key_hash = $3, link_hash = NULL, link_expires_at = NULL WHERE site_hash = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [site.hash, id, hashOwnerKey(key)],
  );
  // the first owner's key is the site's owner key too (`push-kit keys` tells when it was made)
  if (id === FIRST_OWNER_ID) {
    await db.query('UPDATE owner_keys SET key_hash = $2, created_at = now() WHERE site_hash = $1', [site.hash, hashOwnerKey(key)]);
  }
  return { member: memberOf(rows[0]!), key };
}

/**
 * Trades a sign-in link's token for the member's own key, once: the link is spent in the same statement, so a
 * second use (or a race of two) finds nothing. Expired or unknown: E_SIGN_IN_LINK.
 */
export async function signInWithLink(
  db: Queryable,
  registry: SiteRegistry,
  token: string,
): Promise<{ site: HostedSite; member: SignedInMember; key: string }> {
  const key = newOwnerKey();
  const { rows } = await db.query<{ site_hash: string; id: string; name: string; role: Role }>(
    `UPDATE site_members SET key_hash = $2, link_hash = NULL, link_expires_at = NULL
     WHERE link_hash = $1 AND link_expires_at > now() RETURNING site_hash, id, name, role`,
    [hashOwnerKey(token), hashOwnerKey(key)],
  );
  const row = rows[0];
  const site = row ? registry.byHashOrNull(row.site_hash) : null;
  if (!row || !site) throw new ServerError('E_SIGN_IN_LINK');
  return { site, member: { memberId: row.id, name: row.name, role: row.role }, key };
}

/** A page of the site's audit log, newest first. */
export async function siteAuditLog(
  db: Queryable,
  site: HostedSite,
  page: { limit: number; offset: number },
): Promise<{ total: number; limit: number; offset: number; entries: AuditEntry[] }> {
  const limit = Math.min(page.limit, MAX_AUDIT_PAGE);
  const [{ rows: counted }, { rows }] = await Promise.all([
    db.query<{ count: number }>('SELECT count(*)::int AS count FROM audit_log WHERE site_hash = $1', [site.hash]),
    db.query<{ id: string; member_id: string | null; member_name: string; action: string; target: string | null; at: Date | string }>(
      `SELECT id::text, member_id, member_name, action, target, at FROM audit_log WHERE site_hash = $1
       ORDER BY audit_log.id DESC LIMIT $2 OFFSET $3`,
      [site.hash, limit, page.offset],
    ),
  ]);
  return {
    total: counted[0]!.count,
    limit,
    offset: page.offset,
    entries: rows.map((row) => ({
      id: row.id,
      memberId: row.member_id,
      memberName: row.member_name,
      action: row.action,
      target: row.target,
      at: isoTime(row.at),
    })),
  };
}
