// POST /notificationEvent: the service worker reports a notification shown, clicked or closed.
// The body is JSON; a navigator.sendBeacon body arrives as text/plain and is read the same way.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { httpUrlParam, parseParams, siteHash } from '../params.ts';
import { RequestError, sendReply } from '../reply.ts';
import { requireOrigin } from '../site-access.ts';
import type { RouteContext } from './context.ts';
import { CAMPAIGN_ID_PATTERN } from '../../../contract/ids.ts';
import { NOTIFICATION_EVENTS, type NotificationEventReport } from '../../../contract/notification-event.ts';

const CAMPAIGN_ID_RULE = 'must be a campaign id (1 to 18 digits)';

const eventSchema = z.strictObject({
  hash: siteHash,
  campaignId: z
    .union([z.int(CAMPAIGN_ID_RULE).positive(CAMPAIGN_ID_RULE), z.string(CAMPAIGN_ID_RULE).regex(CAMPAIGN_ID_PATTERN, CAMPAIGN_ID_RULE)], {
      error: CAMPAIGN_ID_RULE,
    })
    .transform(String),
  endpoint: httpUrlParam(1024).optional(),
  event: z.enum(NOTIFICATION_EVENTS, { error: 'must be shown, clicked or closed' }),
} satisfies Record<keyof NotificationEventReport, z.ZodType>);

function jsonBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    throw new RequestError('E_BODY_INVALID', { problem: 'must be JSON' });
  }
}

export async function notificationEventRoute(app: FastifyInstance, { db, registry }: RouteContext): Promise<void> {
  app.post('/notificationEvent', async (request, reply) => {
    const params = parseParams(eventSchema, jsonBody(request.body), 'body');
    const site = registry.require(params.hash, 'hash');
    requireOrigin(request, site);
    const campaign = await db.query('SELECT 1 FROM campaigns WHERE site_hash = $1 AND id = $2', [site.hash, params.campaignId]);
    if (campaign.rows.length === 0) throw new RequestError('E_CAMPAIGN_UNKNOWN', { param: 'campaignId', id: params.campaignId });
    await db.query(
      `INSERT INTO events (site_hash, subscriber_id, campaign_id, kind)
       VALUES ($1, (SELECT id FROM subscribers WHERE site_hash = $1 AND endpoint = $2), $3, $4)`,
      [site.hash, params.endpoint ?? null, params.campaignId, params.event],
    );
    return sendReply(request, reply, { status: 'success' });
  });
}
