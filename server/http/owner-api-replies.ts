// Response schemas of the owner API's fixed-shape replies. fastify serializes a reply with its schema
// (fast-json-stringify), so a field not listed here never leaves the server: a site summary cannot carry the
// site's key or config by accident, whatever the handler's object holds.
import { SUBSCRIBER_STATUSES } from '../../contract/owner-api.ts';

const success = { type: 'string', enum: ['success'] } as const;

const replyOf = (properties: Record<string, unknown>) =>
  ({ 200: { type: 'object', required: ['status', ...Object.keys(properties)], properties: { status: success, ...properties } } }) as const;

export const SITES_REPLY = replyOf({
  sites: {
    type: 'array',
    items: {
      type: 'object',
      required: ['name', 'hash', 'companyName', 'origin', 'iconUrl'],
      properties: {
        name: { type: 'string' },
        hash: { type: 'string' },
        companyName: { type: 'string' },
        origin: { type: 'string' },
        iconUrl: { type: ['string', 'null'] },
      },
    },
  },
});

export const AUDIENCE_REPLY = replyOf({ recipients: { type: 'integer' } });

export const SUBSCRIBER_COUNT_REPLY = replyOf({
  count: { type: 'integer' },
  byStatus: {
    type: 'object',
    required: [...SUBSCRIBER_STATUSES],
    properties: Object.fromEntries(SUBSCRIBER_STATUSES.map((status) => [status, { type: 'integer' }])),
  },
});

export const DELETED_REPLY = replyOf({ deleted: { type: 'string' } });

export const MEMBER_ADDED_REPLY = replyOf({ sid: { type: 'string' }, subscriberId: { type: 'string' }, added: { type: 'boolean' } });

export const MEMBER_REMOVED_REPLY = replyOf({ sid: { type: 'string' }, subscriberId: { type: 'string' }, removed: { type: 'boolean' } });
