// The owner API of a site's segments, inside the owner scope (ownerSiteHook has checked the site's key):
//   GET    /api/v1/sites/:name/segments                      stored and configured segments, with member counts
//   POST   /api/v1/sites/:name/segments                      create {sid, name?, condition?}
//   DELETE /api/v1/sites/:name/segments/:sid
//   PUT    /api/v1/sites/:name/segments/:sid/members/:id     add a subscriber
//   DELETE /api/v1/sites/:name/segments/:sid/members/:id     remove a subscriber
//   POST   /api/v1/sites/:name/conditions/check              check a condition as the owner types it
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CONDITION_MAX_LENGTH, formatConditionError, type ConditionCheckReply } from '../../contract/conditions.ts';
import { compileCondition } from '../../compiler/segment-condition.ts';
import { ServerError } from '../errors.ts';
import { ownedSite } from '../http/owner-auth.ts';
import { parseParams, segmentIdParam, subscriberIdParam, text } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import { DELETED_REPLY, MEMBER_ADDED_REPLY, MEMBER_REMOVED_REPLY } from '../http/owner-api-replies.ts';
import { requireSubscriber } from '../subscribers/index.ts';
import { requireSegment } from './require-segment.ts';
import { addMembership, createSegment, deleteSegment, isMember, removeMembership } from './segment-store.ts';
import { siteSegments } from './site-segments.ts';
import { SEGMENT_ID_RULE } from '../../contract/ids.ts';
import {
  SEGMENT_NAME_MAX_LENGTH,
  type DeletedReply,
  type MemberAddedReply,
  type MemberRemovedReply,
  type SegmentCreatedReply,
  type SegmentsReply,
} from '../../contract/owner-api.ts';

const segmentBodySchema = z.strictObject({
  sid: z.union([z.int().positive().transform(String), segmentIdParam], { error: SEGMENT_ID_RULE }),
  name: text(SEGMENT_NAME_MAX_LENGTH).min(1, 'must not be empty').optional(),
  condition: z
    .string({ error: 'must be text' })
    .max(CONDITION_MAX_LENGTH, `must be at most ${CONDITION_MAX_LENGTH} characters`)
    .optional()
    .superRefine((source, ctx) => {
      if (source === undefined || source.trim() === '') return;
      const compiled = compileCondition(source, 'page');
      if (!compiled.ok) ctx.addIssue({ code: 'custom', message: formatConditionError(compiled.error) });
    }),
});

const conditionCheckSchema = z.strictObject({
  condition: z.string({ error: 'must be text' }).max(CONDITION_MAX_LENGTH, `must be at most ${CONDITION_MAX_LENGTH} characters`),
});

const memberParams = z.object({ sid: segmentIdParam, id: subscriberIdParam });

export async function segmentRoutes(app: FastifyInstance, { db }: RouteContext): Promise<void> {
  const memberOf = async (request: FastifyRequest) => {
    const site = ownedSite(request);
    const { sid, id } = parseParams(memberParams, request.params);
    await requireSegment(db, site, sid, 'sid');
    await requireSubscriber(db, site, id, 'id');
    return { site, sid, id };
  };

  app.get('/api/v1/sites/:name/segments', async (request): Promise<SegmentsReply> => {
    return { status: 'success', segments: await siteSegments(db, ownedSite(request)) };
  });

  app.post('/api/v1/sites/:name/segments', async (request, reply) => {
    const site = ownedSite(request);
    const body = parseParams(segmentBodySchema, request.body, 'body');
    const condition = body.condition?.trim() ? body.condition.trim() : undefined;
    if (!(await createSegment(db, site.hash, body.sid, body.name ?? body.sid, condition))) {
      throw new ServerError('E_SEGMENT_EXISTS', { sid: body.sid });
    }
    const created: SegmentCreatedReply = { status: 'success', sid: body.sid, name: body.name ?? body.sid, condition: condition ?? null };
    return reply.code(201).send(created);
  });

  app.put(
    '/api/v1/sites/:name/segments/:sid/members/:id',
    { schema: { response: MEMBER_ADDED_REPLY } },
    async (request): Promise<MemberAddedReply> => {
      const { site, sid, id } = await memberOf(request);
      const already = await isMember(db, site.hash, sid, id);
      if (!already) await addMembership(db, site.hash, sid, id, 'owner');
      return { status: 'success', sid, subscriberId: id, added: !already };
    },
  );

  app.delete(
    '/api/v1/sites/:name/segments/:sid/members/:id',
    { schema: { response: MEMBER_REMOVED_REPLY } },
    async (request): Promise<MemberRemovedReply> => {
      const { site, sid, id } = await memberOf(request);
      if (!(await removeMembership(db, site.hash, sid, id))) throw new ServerError('E_MEMBER_UNKNOWN', { id, sid });
      return { status: 'success', sid, subscriberId: id, removed: true };
    },
  );

  app.delete('/api/v1/sites/:name/segments/:sid', { schema: { response: DELETED_REPLY } }, async (request): Promise<DeletedReply> => {
    const site = ownedSite(request);
    const { sid } = parseParams(z.object({ sid: segmentIdParam }), request.params);
    if (!(await deleteSegment(db, site.hash, sid))) throw new ServerError('E_SEGMENT_UNKNOWN', { param: 'sid', sid, site: site.name });
    return { status: 'success', deleted: sid };
  });

  // The dashboard checks a condition as it is typed, with the compiler `push-kit build` uses. A refused condition
  // is an answer, not a failed call: 200 with its error and column.
  app.post('/api/v1/sites/:name/conditions/check', async (request): Promise<ConditionCheckReply> => {
    ownedSite(request);
    const { condition } = parseParams(conditionCheckSchema, request.body, 'body');
    const compiled = compileCondition(condition, 'page');
    return compiled.ok
      ? { ok: true }
      : { ok: false, error: { code: compiled.error.code, message: compiled.error.message, column: compiled.error.column } };
  });
}
