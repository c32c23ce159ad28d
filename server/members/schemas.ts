// The owner API's member and audit routes: what they take and what they answer (route-schemas.ts).
import { z } from 'zod';
import { SITE_PARAMS, text } from '../http/params.ts';
import { isoTime } from '../http/reply-schemas.ts';
import { fieldsOf, successReply } from '../http/route-schemas.ts';
import { MAX_AUDIT_PAGE, ROLES, type AuditEntry, type Member, type MemberRequest, type SignedInMember } from '../../contract/members.ts';

/** The longest member name. */
export const MEMBER_NAME_MAX_LENGTH = 100;

export const memberParams = SITE_PARAMS.extend({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'must be a member id as push-kit members list shows it'),
});

const role = z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` });
export const memberName = text(MEMBER_NAME_MAX_LENGTH)
  .transform((value) => value.trim())
  .refine((value) => value.length > 0, 'must not be empty')
  .refine(
    (value) => ![...value].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f),
    'must not hold control characters',
  );

export const memberBody = z.strictObject({
  name: memberName,
  role,
  link: z.boolean({ error: 'must be true or false' }).optional(),
} satisfies Record<keyof MemberRequest, z.ZodType>);

export const roleBody = z.strictObject({ role });

export const signInBody = z.strictObject({ token: text(200).regex(/^pl_[A-Za-z0-9_-]{1,100}$/, 'must be a sign-in link token (pl_...)') });

export const auditQuery = z.object({
  limit: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1).max(MAX_AUDIT_PAGE).default(50),
  offset: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(0).default(0),
});

const member = z.object(
  fieldsOf<Member>()({
    memberId: z.string(),
    name: z.string(),
    role,
    hasKey: z.boolean(),
    linkExpiresAt: isoTime.nullable(),
    createdAt: isoTime,
  }),
);
const signedIn = z.object(fieldsOf<SignedInMember>()({ memberId: z.string().nullable(), name: z.string(), role }));
const auditEntry = z.object(
  fieldsOf<AuditEntry>()({
    id: z.string(),
    memberId: z.string().nullable(),
    memberName: z.string(),
    action: z.string(),
    target: z.string().nullable(),
    at: isoTime,
  }),
);

export const MEMBERS_REPLY = successReply({ members: z.array(member) });
export const MEMBER_CREATED_REPLY = successReply({ member, key: z.string().nullable(), signInToken: z.string().nullable() });
export const MEMBER_REPLY = successReply({ member });
export const MEMBER_KEY_REPLY = successReply({ member, key: z.string() });
export const MEMBER_REMOVED_REPLY = successReply({ removed: z.string() });
export const SIGNED_IN_REPLY = successReply({ member: signedIn });
export const SIGN_IN_REPLY = successReply({ site: z.string(), member: signedIn, key: z.string() });
export const AUDIT_REPLY = successReply({
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
  entries: z.array(auditEntry),
});
