// The team of a site (docs/members.md): members with a role each, their own key or a one-time sign-in link,
// and the audit log of every change and send made through the owner API. Types and the role list only.
import type { SuccessReply } from './owner-api.ts';

/** The roles, each opening what the one before it does and more: viewer < editor < owner. */
export const ROLES = ['viewer', 'editor', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export interface Member {
  memberId: string;
  name: string;
  role: Role;
  /** Whether the member has a key yet (false: their sign-in link is still unused). */
  hasKey: boolean;
  /** When an unused sign-in link stops working (ISO), null when there is none. */
  linkExpiresAt: string | null;
  createdAt: string;
}

/** Who made a request: a member, or the provider file's token (memberId null), which acts as an owner. */
export interface SignedInMember {
  memberId: string | null;
  name: string;
  role: Role;
}

/** POST sites/:name/members: a name, a role, and either a key (default) or a one-time sign-in link. */
export interface MemberRequest {
  name: string;
  role: Role;
  link?: boolean;
}

export interface AuditEntry {
  id: string;
  memberId: string | null;
  memberName: string;
  /** What was done: `campaign.create`, `member.remove`, ... */
  action: string;
  /** What it was done to (a campaign id, a member id ...), null when the site itself. */
  target: string | null;
  at: string;
}

/** The most entries one page of the audit log holds. */
export const MAX_AUDIT_PAGE = 200;

export type MembersReply = SuccessReply<{ members: Member[] }>;
/** A new member: their key (shown this once) or their sign-in token (the dashboard's `#sign-in=` link). */
export type MemberCreatedReply = SuccessReply<{ member: Member; key: string | null; signInToken: string | null }>;
export type MemberReply = SuccessReply<{ member: Member }>;
export type MemberKeyReply = SuccessReply<{ member: Member; key: string }>;
export type MemberRemovedReply = SuccessReply<{ removed: string }>;
export type SignedInReply = SuccessReply<{ member: SignedInMember }>;
/** POST /api/v1/sign-in: a sign-in link's token, used once, for the member's own key. */
export type SignInReply = SuccessReply<{ site: string; member: SignedInMember; key: string }>;
export type AuditReply = SuccessReply<{ total: number; limit: number; offset: number; entries: AuditEntry[] }>;
