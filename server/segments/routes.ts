// The owner API of a site's segments, inside the owner scope (ownerSiteHook has checked the site's key):
//   GET    /api/v1/sites/:name/segments                      stored and configured segments, with member counts
//   POST   /api/v1/sites/:name/segments                      create {sid, name?, condition?}
//   DELETE /api/v1/sites/:name/segments/:sid
//   PUT    /api/v1/sites/:name/segments/:sid/members/:id     add a subscriber
//   DELETE /api/v1/sites/:name/segments/:sid/members/:id     remove a subscriber
//   POST   /api/v1/sites/:name/conditions/check              check a condition as the owner types it
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { compileCondition } from '../../compiler/segment-condition.ts';
import { ServerError } from '../errors.ts';
import { ownedSite } from '../http/owner-auth.ts';
import { SITE_PARAMS } from '../http/params.ts';
import { DELETED_REPLY } from '../http/reply-schemas.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { requireSubscriber } from '../subscribers/index.ts';
import { requireSegment } from './require-segment.ts';
import {
  CONDITION_CHECK_REPLY,
  conditionCheckBody,
  MEMBER_ADDED_REPLY,
  MEMBER_REMOVED_REPLY,
  memberParams,
  SEGMENT_CREATED_REPLY,
  segmentBody,
  segmentParams,
  SEGMENTS_REPLY,
} from './schemas.ts';
import { addMembership, createSegment, deleteSegment, isMember, removeMembership } from './segment-store.ts';
import { siteSegments } from './site-segments.ts';

export async function segmentRoutes(fastify: FastifyInstance, { db }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const memberOf = async (request: FastifyRequest, sid: string, id: string) => {
    const site = ownedSite(request);
    await requireSegment(db, site, sid, 'sid');
    await requireSubscriber(db, site, id, 'id');
    return site;
  };

  app.get(
    '/api/v1/sites/:name/segments',
    { config: { role: 'viewer' }, schema: { params: SITE_PARAMS, response: { 200: SEGMENTS_REPLY } } },
    async (request) => ({
      status: 'success' as const,
      segments: await siteSegments(db, ownedSite(request)),
    }),
  );

  app.post(
    '/api/v1/sites/:name/segments',
    {
      config: { role: 'editor', audit: 'segment.create' },
      schema: { params: SITE_PARAMS, body: segmentBody, response: { 201: SEGMENT_CREATED_REPLY } },
    },
    async (request, reply) => {
      const site = ownedSite(request);
      const body = request.body;
      const condition = body.condition?.trim() ? body.condition.trim() : undefined;
      if (!(await createSegment(db, site.hash, body.sid, body.name ?? body.sid, condition))) {
        throw new ServerError('E_SEGMENT_EXISTS', { sid: body.sid });
      }
      return reply.code(201).send({ status: 'success', sid: body.sid, name: body.name ?? body.sid, condition: condition ?? null });
    },
  );

  app.put(
    '/api/v1/sites/:name/segments/:sid/members/:id',
    { config: { role: 'editor', audit: 'segment.member.add' }, schema: { params: memberParams, response: { 200: MEMBER_ADDED_REPLY } } },
    async (request) => {
      const { sid, id } = request.params;
      const site = await memberOf(request, sid, id);
      const already = await isMember(db, site.hash, sid, id);
      if (!already) await addMembership(db, site.hash, sid, id, 'owner');
      return { status: 'success' as const, sid, subscriberId: id, added: !already };
    },
  );

  app.delete(
    '/api/v1/sites/:name/segments/:sid/members/:id',
    {
      config: { role: 'editor', audit: 'segment.member.remove' },
      schema: { params: memberParams, response: { 200: MEMBER_REMOVED_REPLY } },
    },
    async (request) => {
      const { sid, id } = request.params;
      const site = await memberOf(request, sid, id);
      if (!(await removeMembership(db, site.hash, sid, id))) throw new ServerError('E_MEMBER_UNKNOWN', { id, sid });
      return { status: 'success' as const, sid, subscriberId: id, removed: true as const };
    },
  );

  app.delete(
    '/api/v1/sites/:name/segments/:sid',
    { config: { role: 'editor', audit: 'segment.delete' }, schema: { params: segmentParams, response: { 200: DELETED_REPLY } } },
    async (request) => {
      const site = ownedSite(request);
      const { sid } = request.params;
      if (!(await deleteSegment(db, site.hash, sid))) throw new ServerError('E_SEGMENT_UNKNOWN', { param: 'sid', sid, site: site.name });
      return { status: 'success' as const, deleted: sid };
    },
  );

  // The dashboard checks a condition as it is typed, with the compiler `push-kit build` uses. A refused condition
  // is an answer, not a failed call: 200 with its error and column.
  app.post(
    '/api/v1/sites/:name/conditions/check',
    { config: { role: 'editor' }, schema: { params: SITE_PARAMS, body: conditionCheckBody, response: { 200: CONDITION_CHECK_REPLY } } },
    async (request) => {
      const compiled = compileCondition(request.body.condition, 'page');
      return compiled.ok
        ? { ok: true as const }
        : { ok: false as const, error: { code: compiled.error.code, message: compiled.error.message, column: compiled.error.column } };
    },
  );
}
