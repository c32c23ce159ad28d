// POST /api/v1/sites/:name/conditions/check {condition}: the owner dashboard checks a segment condition as it is
// typed, with the compiler `push-kit build` uses. Registered inside the owner API's site routes, so the owner key
// is checked by their hook and the call is rate limited as every call is. A refused condition is an answer, not a
// failed call: 200 with its error and column.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CONDITION_MAX_LENGTH, type ConditionCheckReply } from '../../contract/conditions.ts';
import { compileCondition } from '../../compiler/segment-condition.ts';
import { ownedSite } from '../http/owner-auth.ts';
import { parseParams } from '../http/params.ts';

const bodySchema = z.strictObject({
  condition: z.string({ error: 'must be text' }).max(CONDITION_MAX_LENGTH, `must be at most ${CONDITION_MAX_LENGTH} characters`),
});

export function conditionCheckRoute(app: FastifyInstance): void {
  app.post('/api/v1/sites/:name/conditions/check', async (request): Promise<ConditionCheckReply> => {
    ownedSite(request);
    const { condition } = parseParams(bodySchema, request.body, 'body');
    const compiled = compileCondition(condition, 'page');
    return compiled.ok
      ? { ok: true }
      : { ok: false, error: { code: compiled.error.code, message: compiled.error.message, column: compiled.error.column } };
  });
}
