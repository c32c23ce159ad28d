// The owner API of a site's team, inside the owner scope (ownerSiteHook has found the member and checked the role
// each route declares):
//   GET    /api/v1/sites/:name/me                  who is signed in (any member)
//   GET    /api/v1/sites/:name/members             the team (owners)
//   POST   /api/v1/sites/:name/members             a new member: their key, shown once, or a sign-in link's token
//   PATCH  /api/v1/sites/:name/members/:id         a new role
//   DELETE /api/v1/sites/:name/members/:id         removed: their key is refused at once
//   POST   /api/v1/sites/:name/members/:id/key     a new key for the member (shown once)
//   GET    /api/v1/sites/:name/audit               the audit log, paged, newest first (owners)
// and, outside it, POST /api/v1/sign-in: a sign-in link's token traded once for the member's own key.
import type { FastifyInstance } from 'fastify';
import { ownedSite, setAuditTarget, signedInMember } from '../http/owner-auth.ts';
import { SITE_PARAMS } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { recordAudit } from '../http/audit-log.ts';
import {
  addSiteMember,
  newSiteMemberKey,
  removeSiteMember,
  setSiteMemberRole,
  signInWithLink,
  siteAuditLog,
  siteMembers,
} from './member-store.ts';
import {
  AUDIT_REPLY,
  auditQuery,
  MEMBER_CREATED_REPLY,
  MEMBER_KEY_REPLY,
  MEMBER_REMOVED_REPLY,
  MEMBER_REPLY,
  memberBody,
  memberParams,
  MEMBERS_REPLY,
  roleBody,
  SIGN_IN_REPLY,
  signInBody,
  SIGNED_IN_REPLY,
} from './schemas.ts';

export async function memberRoutes(fastify: FastifyInstance, { db }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = '/api/v1/sites/:name/members';

  app.get(
    '/api/v1/sites/:name/me',
    { config: { role: 'viewer' }, schema: { params: SITE_PARAMS, response: { 200: SIGNED_IN_REPLY } } },
    async (request) => ({ status: 'success' as const, member: signedInMember(request) }),
  );

  app.get(base, { config: { role: 'owner' }, schema: { params: SITE_PARAMS, response: { 200: MEMBERS_REPLY } } }, async (request) => ({
    status: 'success' as const,
    members: await siteMembers(db, ownedSite(request)),
  }));

  app.post(
    base,
    {
      config: { role: 'owner', audit: 'member.add' },
      schema: { params: SITE_PARAMS, body: memberBody, response: { 201: MEMBER_CREATED_REPLY } },
    },
    async (request, reply) => {
      const created = await addSiteMember(db, ownedSite(request), request.body);
      setAuditTarget(request, `${created.member.memberId} (${created.member.name}, ${created.member.role})`);
      return reply.code(201).send({ status: 'success', ...created });
    },
  );

  app.patch(
    `${base}/:id`,
    { config: { role: 'owner', audit: 'member.role' }, schema: { params: memberParams, body: roleBody, response: { 200: MEMBER_REPLY } } },
    async (request) => {
      const member = await setSiteMemberRole(db, ownedSite(request), request.params.id, request.body.role);
      setAuditTarget(request, `${member.memberId} (${member.name}) to ${member.role}`);
      return { status: 'success' as const, member };
    },
  );

  app.delete(
    `${base}/:id`,
    { config: { role: 'owner', audit: 'member.remove' }, schema: { params: memberParams, response: { 200: MEMBER_REMOVED_REPLY } } },
    async (request) => {
      await removeSiteMember(db, ownedSite(request), request.params.id);
      return { status: 'success' as const, removed: request.params.id };
    },
  );

  app.post(
    `${base}/:id/key`,
    { config: { role: 'owner', audit: 'member.key' }, schema: { params: memberParams, response: { 200: MEMBER_KEY_REPLY } } },
    async (request) => ({ status: 'success' as const, ...(await newSiteMemberKey(db, ownedSite(request), request.params.id)) }),
  );

  app.get(
    '/api/v1/sites/:name/audit',
    { config: { role: 'owner' }, schema: { params: SITE_PARAMS, querystring: auditQuery, response: { 200: AUDIT_REPLY } } },
    async (request) => ({ status: 'success' as const, ...(await siteAuditLog(db, ownedSite(request), request.query)) }),
  );
}

/** POST /api/v1/sign-in, outside the owner scope: the link is the credential, spent by its first use. */
export async function signInRoute(fastify: FastifyInstance, { db, registry }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.post('/api/v1/sign-in', { schema: { body: signInBody, response: { 200: SIGN_IN_REPLY } } }, async (request, reply) => {
    const { site, member, key } = await signInWithLink(db, registry, request.body.token);
    await recordAudit(db, site.hash, member, 'member.sign-in', member.memberId);
    return reply.header('cache-control', 'no-store').send({ status: 'success' as const, site: site.name, member, key });
  });
}
