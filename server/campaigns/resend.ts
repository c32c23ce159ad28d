// "Send again to those who did not click": a new campaign with the first one's message (its A/B winner's when it
// had one), going at once to the subscribers it was delivered to who have not clicked it and are still
// subscribed. The new campaign names the first (resendOf); the first is unchanged.
import type { Database } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import type { HostedSite } from '../sites.ts';
import type { CampaignResent } from '../../contract/campaign-report.ts';

export async function resendToNonClickers(db: Database, site: HostedSite, id: string): Promise<CampaignResent> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO campaigns (site_hash, title, body, url, icon, image, actions, texts, app_badge, ttl, urgency, topic, status, resend_of)
       SELECT c.site_hash, coalesce(v.title, c.title), coalesce(v.body, c.body), coalesce(v.url, c.url), coalesce(v.icon, c.icon),
         coalesce(v.image, c.image), c.actions, coalesce(v.texts, c.texts), c.app_badge, c.ttl, c.urgency, c.topic, 'pending', c.id
       FROM campaigns c LEFT JOIN campaign_variants v ON v.campaign_id = c.id AND v.variant = c.winner_variant
       WHERE c.site_hash = $1 AND c.id = $2 AND c.automation IS NULL
       RETURNING id`,
      [site.hash, id],
    );
    if (!rows[0]) throw new ServerError('E_CAMPAIGN_UNKNOWN', { param: 'id', id, site: site.name });
    // who it was delivered to went with its delivery rows after the reporting window: say so, not "nobody"
    const pruned = await tx.query<{ days: number | null }>('SELECT pruned_after_days AS days FROM campaigns WHERE id = $1', [id]);
    const days = pruned.rows[0]?.days;
    if (days !== null && days !== undefined) throw new ServerError('E_CAMPAIGN_DETAILS_PRUNED', { id, days });
    const campaignId = String(rows[0].id);
    const inserted = await tx.query<{ recipients: number }>(
      `WITH inserted AS (
         INSERT INTO deliveries (campaign_id, subscriber_id, next_attempt_at)
         SELECT $1, d.subscriber_id, now() FROM deliveries d JOIN subscribers s ON s.id = d.subscriber_id
         WHERE d.campaign_id = $2 AND d.status = 'delivered' AND s.status = 'subscribed' AND s.endpoint IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM events e WHERE e.campaign_id = $2 AND e.kind = 'clicked' AND e.subscriber_id = d.subscriber_id)
         ON CONFLICT (campaign_id, subscriber_id) DO NOTHING RETURNING 1
       )
       SELECT count(*)::int AS recipients FROM inserted`,
      [campaignId, id],
    );
    const recipients = inserted.rows[0]!.recipients;
    if (recipients === 0) throw new ServerError('E_CAMPAIGN_NOBODY_TO_RESEND', { id });
    return { campaignId, recipients, resendOf: id };
  });
}
