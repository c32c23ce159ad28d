// Who a campaign reaches: the site's subscribed visitors with a push endpoint, all of them, those in one
// segment, those an audience's rule matches (server/audiences), or one subscriber. One query, used by
// createCampaign (a delivery per recipient) and by the owner dashboard's "reaches N" (a count), so the number
// the owner sees is the number the campaign gets.
import type { AudienceQuery } from '../../contract/owner-api.ts';
import type { Queryable } from '../db/database.ts';
import { audienceFilter } from '../audiences/index.ts';

/** Everyone, or only the subscribers in the segment with this sid, or of this audience, or only this subscriber. */
export type Audience = AudienceQuery;

/**
 * `SELECT s.id FROM subscribers s WHERE ...` for the audience, its placeholders numbered from `firstParam`
 * so a caller can put its own parameters first. An audience id the site has not is refused (E_AUDIENCE_UNKNOWN).
 */
export async function audienceQuery(
  db: Queryable,
  siteHash: string,
  audience: Audience,
  firstParam = 1,
): Promise<{ sql: string; params: unknown[] }> {
  const params: unknown[] = [siteHash];
  const next = () => `$${firstParam + params.length - 1}`;
  const conditions = [`s.site_hash = ${next()}`, `s.status = 'subscribed'`, 's.endpoint IS NOT NULL'];
  if (audience.subscriberId) {
    params.push(audience.subscriberId);
    conditions.push(`s.id = ${next()}`);
  }
  if (audience.segment) {
    params.push(audience.segment);
    conditions.push(
      `EXISTS (SELECT 1 FROM segment_memberships m JOIN segments g ON g.id = m.segment_id
                WHERE m.subscriber_id = s.id AND g.site_hash = s.site_hash AND g.sid = ${next()})`,
    );
  }
  if (audience.audience) {
    const rule = await audienceFilter(db, { hash: siteHash }, audience.audience, firstParam + params.length);
    params.push(...rule.params);
    conditions.push(rule.sql);
  }
  return { sql: `SELECT s.id FROM subscribers s WHERE ${conditions.join(' AND ')}`, params };
}

/** How many subscribers a campaign to this audience would have now. */
export async function audienceSize(db: Queryable, siteHash: string, audience: Audience): Promise<number> {
  const { sql, params } = await audienceQuery(db, siteHash, audience);
  const { rows } = await db.query<{ count: string }>(`SELECT count(*) AS count FROM (${sql}) audience`, params);
  return Number(rows[0]!.count);
}
