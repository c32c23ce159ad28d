// The owner API's segment routes: what they take and what they answer (route-schemas.ts).
import { z } from 'zod';
import { segmentIdParam, SITE_PARAMS, subscriberIdParam, text } from '../http/params.ts';
import { isoTime } from '../http/reply-schemas.ts';
import { fieldsOf, successReply } from '../http/route-schemas.ts';
import { compileCondition } from '../../compiler/segment-condition.ts';
import { CONDITION_MAX_LENGTH, formatConditionError, type ConditionCheckReply } from '../../contract/conditions.ts';
import { SEGMENT_ID_OR_NUMBER_RULE } from '../../contract/ids.ts';
import { SEGMENT_NAME_MAX_LENGTH, type Segment } from '../../contract/owner-api.ts';

export const segmentParams = SITE_PARAMS.extend({ sid: segmentIdParam });
export const memberParams = segmentParams.extend({ id: subscriberIdParam });

export const segmentBody = z.strictObject({
  sid: z.union([z.int().positive().transform(String), segmentIdParam], { error: SEGMENT_ID_OR_NUMBER_RULE }),
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

export const conditionCheckBody = z.strictObject({
  condition: z.string({ error: 'must be text' }).max(CONDITION_MAX_LENGTH, `must be at most ${CONDITION_MAX_LENGTH} characters`),
});

const segment = z.object(
  fieldsOf<Segment>()({
    sid: z.string(),
    name: z.string(),
    members: z.int(),
    reachable: z.int(),
    condition: z.string().nullable(),
    configCondition: z.string().nullable(),
    createdAt: isoTime.nullable(),
  }),
);

export const SEGMENTS_REPLY = successReply({ segments: z.array(segment) });
export const SEGMENT_CREATED_REPLY = successReply({ sid: z.string(), name: z.string(), condition: z.string().nullable() });
export const MEMBER_ADDED_REPLY = successReply({ sid: z.string(), subscriberId: z.string(), added: z.boolean() });
export const MEMBER_REMOVED_REPLY = successReply({ sid: z.string(), subscriberId: z.string(), removed: z.literal(true) });
export const CONDITION_CHECK_REPLY = z.union([
  z.object({ ok: z.literal(true) }),
  z.object({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string(), column: z.int() }) }),
]) satisfies z.ZodType<ConditionCheckReply, unknown>;
