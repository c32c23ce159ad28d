// POST /api/v1/sites/:name/conditions/check {condition}: the owner dashboard checks a segment condition as it is
// typed, with the compiler `push-kit build` uses. Needs the site's owner key; rate limited as every call is
// (rate-limit.ts). A refused condition is an answer, not a failed call: 200 with its error and column.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CONDITION_MAX_LENGTH, type ConditionCheckReply } from '../../../contract/conditions.ts';
import { compileCondition } from '../../../compiler/segment-condition.ts';
import { requireOwner } from '../owner-auth.ts';
import { parseParams } from '../params.ts';
import { RequestError } from '../reply.ts';
import type { RouteContext } from './context.ts';

const bodySchema = z.strictObject({
  condition: z.string({ error: 'must be text' }).max(CONDITION_MAX_LENGTH, `must be at most ${CONDITION_MAX_LENGTH} characters`),
});

/** The code a failed call replies with, beside its message. */
const FAILURE_CODES: Record<number, string> = { 400: 'E_INVALID_PARAMETER', 401: 'E_OWNER_KEY', 404: 'E_UNKNOWN_SITE' };

export function registerConditionCheckRoute(app: FastifyInstance, { db, registry }: RouteContext): void {
  app.post('/api/v1/sites/:name/conditions/check', async (request, reply) => {
    try {
      const { name } = parseParams(z.object({ name: z.string() }), request.params);
      const site = registry.byNameOrNull(name);
      if (!site) throw new RequestError(404, `name: no hosted site named ${name}`);
      await requireOwner(db, request, site);
      const { condition } = parseParams(bodySchema, request.body, 'body');
      const compiled = compileCondition(condition, 'page');
      const answer: ConditionCheckReply = compiled.ok
        ? { ok: true }
        : { ok: false, error: { code: compiled.error.code, message: compiled.error.message, column: compiled.error.column } };
      return answer;
    } catch (error) {
      if (!(error instanceof RequestError) || !(error.statusCode in FAILURE_CODES)) throw error;
      return reply.code(error.statusCode).send({ status: 'failure', message: error.message, code: FAILURE_CODES[error.statusCode] });
    }
  });
}
