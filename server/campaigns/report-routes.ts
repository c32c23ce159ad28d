// POST /notificationEvent: the service worker reports a notification shown, clicked or closed. A report counts
// only with proof that it comes from the subscriber (its delivery's click token, or else its push subscription),
// and only for a delivery the push service took, within its TTL (delivered-report.ts).
// The body is JSON; a navigator.sendBeacon body arrives as text/plain and is read the same way.
import { ServerError } from '../errors.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { httpUrlParam, siteHash } from '../http/params.ts';
import { STORED_REPLY } from '../http/reply-schemas.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { sendReply } from '../http/reply.ts';
import { requireOrigin } from '../http/site-access.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { Queryable } from '../db/database.ts';
import { requireDeliveredReport } from './delivered-report.ts';
import { CAMPAIGN_ID_PATTERN, CLICK_TOKEN_PATTERN, CLICK_TOKEN_RULE } from '../../contract/ids.ts';
import { clickTokenMatches, deliveryIdOf } from './click-token.ts';
import { NOTIFICATION_EVENTS, type NotificationEventReport } from '../../contract/notification-event.ts';
import { notificationReported } from '../webhooks/index.ts';

const CAMPAIGN_ID_RULE = 'must be a campaign id (1 to 18 digits)';

const eventSchema = z.strictObject({
  hash: siteHash,
  campaignId: z
    .union([z.int(CAMPAIGN_ID_RULE).positive(CAMPAIGN_ID_RULE), z.string(CAMPAIGN_ID_RULE).regex(CAMPAIGN_ID_PATTERN, CAMPAIGN_ID_RULE)], {
      error: CAMPAIGN_ID_RULE,
    })
    .transform(String)
    .optional(),
  click: z.string(CLICK_TOKEN_RULE).regex(CLICK_TOKEN_PATTERN, CLICK_TOKEN_RULE).optional(),
  endpoint: httpUrlParam(1024).optional(),
  event: z.enum(NOTIFICATION_EVENTS, { error: 'must be shown, clicked or closed' }),
} satisfies Record<keyof NotificationEventReport, z.ZodType>);

/** A navigator.sendBeacon body arrives as text/plain: read as JSON before the schema checks it. */
async function readJsonText(request: FastifyRequest): Promise<void> {
  if (typeof request.body !== 'string') return;
  try {
    request.body = JSON.parse(request.body);
  } catch {
    throw new ServerError('E_BODY_INVALID', { problem: 'must be JSON' });
  }
}

/**
 * The subscriber and campaign of a click token's delivery on the site, or an error: a forged, edited or other
 * site's token counts nothing.
 */
async function deliveryOfToken(db: Queryable, siteHash: string, token: string): Promise<{ campaignId: string; subscriberId: string }> {
  const { rows } = await db.query<{ campaign_id: string; subscriber_id: string; secret_hash: string | null }>(
    `SELECT d.campaign_id, d.subscriber_id, s.secret_hash FROM deliveries d
     JOIN campaigns c ON c.id = d.campaign_id JOIN subscribers s ON s.id = d.subscriber_id
     WHERE d.id = $1 AND c.site_hash = $2`,
    [deliveryIdOf(token), siteHash],
  );
  const row = rows[0];
  if (!row || !clickTokenMatches(token, row.secret_hash)) throw new ServerError('E_CLICK_TOKEN_WRONG', {});
  return { campaignId: String(row.campaign_id), subscriberId: row.subscriber_id };
}

/**
 * The subscriber of a report without a click token (a payload queued before tokens, a subscriber with no
 * secret): its endpoint, which only the subscriber's browser and the provider know, must be a subscriber's that
 * this campaign was sent to. A report naming no endpoint, or another, counts nothing.
 */
async function subscriberOfEndpoint(db: Queryable, siteHash: string, campaignId: string, endpoint: string | undefined): Promise<string> {
  if (endpoint === undefined) throw new ServerError('E_NOTIFICATION_REPORT_UNPROVEN', {});
  const { rows } = await db.query<{ id: string }>(
    `SELECT s.id FROM subscribers s JOIN deliveries d ON d.subscriber_id = s.id AND d.campaign_id = $3
     WHERE s.site_hash = $1 AND s.endpoint = $2`,
    [siteHash, endpoint, campaignId],
  );
  if (!rows[0]) throw new ServerError('E_NOTIFICATION_REPORT_UNPROVEN', {});
  return rows[0].id;
}

export async function notificationEventRoute(fastify: FastifyInstance, { db, registry }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/notificationEvent',
    { preValidation: readJsonText, schema: { body: eventSchema, response: { 200: STORED_REPLY } } },
    async (request, reply) => {
      const params = request.body;
      const site = registry.require(params.hash, 'hash');
      requireOrigin(request, site);
      let delivery: { campaignId: string; subscriberId: string };
      const proof = params.click ? 'token' : 'endpoint';
      if (params.click) {
        delivery = await deliveryOfToken(db, site.hash, params.click);
        if (params.campaignId !== undefined && params.campaignId !== delivery.campaignId) throw new ServerError('E_CLICK_TOKEN_WRONG', {});
      } else {
        const campaignId = params.campaignId;
        if (campaignId === undefined) throw new ServerError('E_CAMPAIGN_ID_MISSING', {});
        const campaign = await db.query('SELECT 1 FROM campaigns WHERE site_hash = $1 AND id = $2', [site.hash, campaignId]);
        if (campaign.rows.length === 0) throw new ServerError('E_CAMPAIGN_UNKNOWN', { param: 'campaignId', id: campaignId });
        delivery = { campaignId, subscriberId: await subscriberOfEndpoint(db, site.hash, campaignId, params.endpoint) };
      }
      await requireDeliveredReport(db, delivery.campaignId, delivery.subscriberId);
      // Once per subscriber, campaign and kind: a report repeated (the worker and the landing page both report a
      // click, a replayed request), even at the same moment, adds no row (migration 45's unique index). The proof it
      // came with is kept for the figures.
      await db.query(
        `INSERT INTO events (site_hash, subscriber_id, campaign_id, kind, detail) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (campaign_id, kind, subscriber_id) DO NOTHING`,
        [site.hash, delivery.subscriberId, delivery.campaignId, params.event, JSON.stringify({ proof })],
      );
      await notificationReported(db, site.hash, delivery.campaignId, delivery.subscriberId, params.event);
      return sendReply(request, reply, { status: 'success' });
    },
  );
}
