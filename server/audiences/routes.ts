// The owner API of a site's audiences (server-side segments over stored data), inside the owner scope:
//   GET    /api/v1/sites/:name/audiences            the audiences with their counts, and the variables a rule reads
//   POST   /api/v1/sites/:name/audiences            create {id, name?, condition}
//   DELETE /api/v1/sites/:name/audiences/:id
//   POST   /api/v1/sites/:name/audiences/check      a rule as the owner types it: its error, or its live count
import type { FastifyInstance } from 'fastify';
import { ServerError } from '../errors.ts';
import { ownedSite, setAuditTarget } from '../http/owner-auth.ts';
import { SITE_PARAMS } from '../http/params.ts';
import { DELETED_REPLY } from '../http/reply-schemas.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { AUDIENCE_VARIABLES } from '../../contract/audiences.ts';
import { compileAudienceRule } from './audience-sql.ts';
import { countAudienceRule, createAudience, deleteAudience, listAudiences } from './audience-store.ts';
import {
  AUDIENCE_CHECK_REPLY,
  AUDIENCE_CREATED_REPLY,
  audienceBody,
  audienceCheckBody,
  audienceParams,
  AUDIENCES_REPLY,
} from './schemas.ts';

export async function audienceRoutes(fastify: FastifyInstance, { db }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/v1/sites/:name/audiences',
    { config: { role: 'viewer' }, schema: { params: SITE_PARAMS, response: { 200: AUDIENCES_REPLY } } },
    async (request) => ({
      status: 'success' as const,
      audiences: await listAudiences(db, ownedSite(request).hash),
      variables: [...AUDIENCE_VARIABLES],
    }),
  );

  app.post(
    '/api/v1/sites/:name/audiences',
    {
      config: { role: 'editor', audit: 'audience.create' },
      schema: { params: SITE_PARAMS, body: audienceBody, response: { 201: AUDIENCE_CREATED_REPLY } },
    },
    async (request, reply) => {
      const { id, name, condition } = request.body;
      const audience = await createAudience(db, ownedSite(request).hash, { id, name: name ?? id, condition });
      if (!audience) throw new ServerError('E_AUDIENCE_EXISTS', { id });
      setAuditTarget(request, `audience=${id}`);
      return reply.code(201).send({ status: 'success', audience });
    },
  );

  app.delete(
    '/api/v1/sites/:name/audiences/:id',
    { config: { role: 'editor', audit: 'audience.delete' }, schema: { params: audienceParams, response: { 200: DELETED_REPLY } } },
    async (request) => {
      const site = ownedSite(request);
      const { id } = request.params;
      if (!(await deleteAudience(db, site.hash, id))) throw new ServerError('E_AUDIENCE_UNKNOWN', { param: 'id', id, site: site.name });
      return { status: 'success' as const, deleted: id };
    },
  );

  // Checked as it is typed: a refused rule is an answer (200, its error and column), a good one comes with its count.
  app.post(
    '/api/v1/sites/:name/audiences/check',
    { config: { role: 'editor' }, schema: { params: SITE_PARAMS, body: audienceCheckBody, response: { 200: AUDIENCE_CHECK_REPLY } } },
    async (request) => {
      const compiled = compileAudienceRule(request.body.condition);
      if (!compiled.ok) {
        const { code, message, column } = compiled.error;
        return { ok: false as const, error: { code, message, column } };
      }
      return { ok: true as const, ...(await countAudienceRule(db, ownedSite(request).hash, request.body.condition)) };
    },
  );
}
