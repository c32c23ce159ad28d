// Campaigns: one notification to all subscribed visitors of a site, to a segment, or to one subscriber.
// Creating a campaign writes one pending delivery per recipient; the sender (server/push/) claims pending
// deliveries with FOR UPDATE SKIP LOCKED, so several processes share the work and a restart resumes it.
import type { Database, Queryable } from './database.ts';
import type { HostedSite } from '../sites.ts';
import type { CampaignAction, CampaignInput } from '../../contract/campaign-input.ts';
import type { Campaign, CampaignStatus, CreatedCampaign } from '../../contract/owner-api.ts';
import type { Urgency } from '../../contract/urgency.ts';
import { audienceQuery } from './audience.ts';

export async function createCampaign(db: Database, site: Pick<HostedSite, 'hash'>, input: CampaignInput): Promise<CreatedCampaign> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO campaigns (site_hash, title, body, url, icon, segment_sid, subscriber_id, ttl, urgency, image, actions, app_badge)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
      [
        site.hash,
        input.title,
        input.body,
        input.url ?? null,
        input.icon ?? null,
        input.segment ?? null,
        input.subscriberId ?? null,
        input.ttl,
        input.urgency,
        input.image ?? null,
        input.actions?.length ? JSON.stringify(input.actions) : null,
        input.appBadge ?? null,
      ],
    );
    const campaignId = String(rows[0]!.id);
    const audience = audienceQuery(site.hash, input, 2);
    // counted in the database: a campaign to everyone must not carry a row per recipient back to the process
    const inserted = await tx.query<{ recipients: number }>(
      `WITH inserted AS (
         INSERT INTO deliveries (campaign_id, subscriber_id)
         SELECT $1, audience.id FROM (${audience.sql}) audience
         ON CONFLICT (campaign_id, subscriber_id) DO NOTHING RETURNING 1
       )
       SELECT count(*)::int AS recipients FROM inserted`,
      [campaignId, ...audience.params],
    );
    const recipients = inserted.rows[0]!.recipients;
    if (recipients === 0) {
      await tx.query(`UPDATE campaigns SET status = 'done', completed_at = now() WHERE id = $1`, [campaignId]);
    }
    return { campaignId, recipients };
  });
}

interface CampaignRow {
  id: string;
  title: string;
  body: string;
  url: string | null;
  icon: string | null;
  image: string | null;
  actions: CampaignAction[] | null;
  app_badge: number | null;
  segment_sid: string | null;
  subscriber_id: string | null;
  ttl: number;
  urgency: Urgency;
  status: CampaignStatus;
  created_at: Date;
  completed_at: Date | null;
  recipients: string;
  pending: string;
  delivered: string;
  failed: string;
  expired: string;
  shown: string;
  clicked: string;
  closed: string;
}

const CAMPAIGN_SELECT = `
  SELECT c.*,
    (SELECT count(*) FROM deliveries d WHERE d.campaign_id = c.id) AS recipients,
    (SELECT count(*) FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'pending') AS pending,
    (SELECT count(*) FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'delivered') AS delivered,
    (SELECT count(*) FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'failed') AS failed,
    (SELECT count(*) FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'expired') AS expired,
    (SELECT count(DISTINCT coalesce(e.subscriber_id, e.id::text)) FROM events e WHERE e.campaign_id = c.id AND e.kind = 'shown') AS shown,
    (SELECT count(DISTINCT coalesce(e.subscriber_id, e.id::text)) FROM events e WHERE e.campaign_id = c.id AND e.kind = 'clicked') AS clicked,
    (SELECT count(DISTINCT coalesce(e.subscriber_id, e.id::text)) FROM events e WHERE e.campaign_id = c.id AND e.kind = 'closed') AS closed
  FROM campaigns c`;

function summary(row: CampaignRow): Campaign {
  const delivered = Number(row.delivered);
  const failed = Number(row.failed);
  const expired = Number(row.expired);
  return {
    campaignId: String(row.id),
    title: row.title,
    body: row.body,
    url: row.url,
    icon: row.icon,
    image: row.image,
    actions: row.actions ?? [],
    appBadge: row.app_badge,
    segment: row.segment_sid,
    subscriberId: row.subscriber_id,
    ttl: row.ttl,
    urgency: row.urgency,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    completedAt: row.completed_at ? new Date(row.completed_at).toISOString() : null,
    recipients: Number(row.recipients),
    // sent: every delivery the sender has finished with, whatever the push service answered
    sent: delivered + failed + expired,
    pending: Number(row.pending),
    delivered,
    failed,
    expired,
    shown: Number(row.shown),
    clicked: Number(row.clicked),
    closed: Number(row.closed),
  };
}

export async function listCampaigns(db: Queryable, siteHash: string, limit: number, offset: number): Promise<Campaign[]> {
  const { rows } = await db.query<CampaignRow>(`${CAMPAIGN_SELECT} WHERE c.site_hash = $1 ORDER BY c.id DESC LIMIT $2 OFFSET $3`, [
    siteHash,
    limit,
    offset,
  ]);
  return rows.map(summary);
}

export async function getCampaign(db: Queryable, siteHash: string, campaignId: string): Promise<Campaign | null> {
  const { rows } = await db.query<CampaignRow>(`${CAMPAIGN_SELECT} WHERE c.site_hash = $1 AND c.id = $2`, [siteHash, campaignId]);
  return rows[0] ? summary(rows[0]) : null;
}
