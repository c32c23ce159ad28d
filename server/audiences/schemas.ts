// The owner API's audience routes: what they take and what they answer (route-schemas.ts).
import { z } from 'zod';
import { SITE_PARAMS, text } from '../http/params.ts';
import { isoTime } from '../http/reply-schemas.ts';
import { fieldsOf, successReply } from '../http/route-schemas.ts';
import { CONDITION_MAX_LENGTH, formatConditionError } from '../../contract/conditions.ts';
import {
  AUDIENCE_ID_PATTERN,
  AUDIENCE_ID_RULE,
  AUDIENCE_NAME_MAX_LENGTH,
  type Audience,
  type AudienceCheckReply,
  type AudienceVariable,
} from '../../contract/audiences.ts';
import { compileAudienceRule } from './audience-sql.ts';

export const audienceIdParam = text(40, AUDIENCE_ID_PATTERN, AUDIENCE_ID_RULE);
export const audienceParams = SITE_PARAMS.extend({ id: audienceIdParam });

const ruleText = z.string({ error: 'must be text' }).max(CONDITION_MAX_LENGTH, `must be at most ${CONDITION_MAX_LENGTH} characters`);

export const audienceBody = z.strictObject({
  id: audienceIdParam,
  name: text(AUDIENCE_NAME_MAX_LENGTH).trim().min(1, 'must not be empty').optional(),
  condition: ruleText.trim().superRefine((source, ctx) => {
    if (source === '') return void ctx.addIssue({ code: 'custom', message: 'must not be empty' });
    const compiled = compileAudienceRule(source);
    if (!compiled.ok) ctx.addIssue({ code: 'custom', message: formatConditionError(compiled.error) });
  }),
});

export const audienceCheckBody = z.strictObject({ condition: ruleText });

const audience = z.object(
  fieldsOf<Audience>()({
    id: z.string(),
    name: z.string(),
    condition: z.string(),
    members: z.int(),
    reachable: z.int(),
    createdAt: isoTime,
  }),
);

const variable = z.object(
  fieldsOf<AudienceVariable>()({
    name: z.string(),
    type: z.enum(['string', 'number', 'boolean']),
    description: z.string(),
    example: z.string(),
  }),
);

export const AUDIENCES_REPLY = successReply({ audiences: z.array(audience), variables: z.array(variable) });
export const AUDIENCE_CREATED_REPLY = successReply({ audience });
export const AUDIENCE_CHECK_REPLY = z.union([
  z.object({ ok: z.literal(true), members: z.int(), reachable: z.int() }),
  z.object({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string(), column: z.int() }) }),
]) satisfies z.ZodType<AudienceCheckReply, unknown>;
