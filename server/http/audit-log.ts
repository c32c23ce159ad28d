// The audit log (server/members/ reads it): every change and send made through the owner API, who made it (the
// member, or the provider token), what (an action and its target) and when. Written by the owner scope's onSend
// hook (owner-auth.ts) for each route declaring `config: { audit }`, and by the command line's own changes.
import type { Queryable } from '../db/database.ts';
import type { SignedInMember } from '../../contract/members.ts';

/** Who a change made by the command line straight on the database is in the audit log. */
export const COMMAND_LINE_MEMBER: SignedInMember = { memberId: null, name: 'push-kit command line', role: 'owner' };

export async function recordAudit(
  db: Queryable,
  siteHash: string,
  member: Pick<SignedInMember, 'memberId' | 'name'>,
  action: string,
  target: string | null,
): Promise<void> {
  await db.query('INSERT INTO audit_log (site_hash, member_id, member_name, action, target) VALUES ($1, $2, $3, $4, $5)', [
    siteHash,
    member.memberId,
    member.name,
    action,
    target === null ? null : target.slice(0, 256),
  ]);
}
