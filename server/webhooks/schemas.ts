// The owner API's webhook routes: what they take and what they answer (route-schemas.ts).
import { z } from 'zod';
import { SITE_PARAMS, text } from '../http/params.ts';
import { isoTime } from '../http/reply-schemas.ts';
import { fieldsOf, successReply } from '../http/route-schemas.ts';
import {
  WEBHOOK_DESCRIPTION_MAX_LENGTH,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_URL_MAX_LENGTH,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookEndpointRequest,
  type WebhookEndpointUpdate,
  type WebhookMessage,
  type WebhookRotateRequest,
} from '../../contract/webhook-events.ts';

const ID_RULE = 'must be a webhook endpoint id (digits)';
export const webhookParams = SITE_PARAMS.extend({ id: z.string().regex(/^\d{1,18}$/, ID_RULE) });
export const messageParams = webhookParams.extend({
  messageId: z.string().regex(/^msg_[A-Za-z0-9]{1,64}$/, 'must be an event id as the log shows it (msg_...)'),
});

const eventType = z.enum(WEBHOOK_EVENT_TYPES, { error: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` });
const events = z
  .array(eventType, { error: 'must be a list of event names' })
  .min(1, 'must name at least one event')
  .max(WEBHOOK_EVENT_TYPES.length * 2);
const description = text(WEBHOOK_DESCRIPTION_MAX_LENGTH);

export const webhookBody = z.strictObject({
  url: text(WEBHOOK_URL_MAX_LENGTH).min(1, 'must not be empty'),
  events,
  description: description.optional(),
} satisfies Record<keyof WebhookEndpointRequest, z.ZodType>);

export const webhookUpdateBody = z.strictObject({
  events: events.optional(),
  description: description.optional(),
  enabled: z.boolean({ error: 'must be true or false' }).optional(),
} satisfies Record<keyof WebhookEndpointUpdate, z.ZodType>);

export const rotateBody = z
  .strictObject({
    overlapHours: z.number({ error: 'must be a number of hours' }).int('must be a whole number of hours').min(0).max(168).optional(),
  } satisfies Record<keyof WebhookRotateRequest, z.ZodType>)
  .optional();

export const logQuery = z.object({
  limit: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1).max(500).default(50),
});

const endpoint = z.object(
  fieldsOf<WebhookEndpoint>()({
    endpointId: z.string(),
    url: z.string(),
    events: z.array(eventType),
    description: z.string().nullable(),
    status: z.enum(['enabled', 'disabled']),
    disabledReason: z.string().nullable(),
    disabledAt: isoTime.nullable(),
    pending: z.int(),
    createdAt: isoTime,
    previousSecretExpiresAt: isoTime.nullable(),
  }),
);

const attempt = z.object(
  fieldsOf<WebhookAttempt>()({
    attemptId: z.string(),
    messageId: z.string(),
    type: eventType,
    attemptedAt: isoTime,
    statusCode: z.int().nullable(),
    outcome: z.enum(['delivered', 'retrying', 'failed']),
    latencyMs: z.int(),
    response: z.string(),
  }),
);

const message = z.object(
  fieldsOf<WebhookMessage>()({
    messageId: z.string(),
    type: eventType,
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.int(),
    createdAt: isoTime,
    nextAttemptAt: isoTime.nullable(),
  }),
);

export const WEBHOOKS_REPLY = successReply({ endpoints: z.array(endpoint) });
export const WEBHOOK_REPLY = successReply({ endpoint });
export const WEBHOOK_SECRET_REPLY = successReply({ endpoint, secret: z.string() });
export const WEBHOOK_REMOVED_REPLY = successReply({ endpointId: z.string(), removed: z.literal(true) });
export const WEBHOOK_LOG_REPLY = successReply({ attempts: z.array(attempt), messages: z.array(message) });
export const WEBHOOK_REPLAYED_REPLY = successReply({ messageId: z.string(), endpointId: z.string() });
