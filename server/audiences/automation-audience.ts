// An automation limited to an audience (its setting `audience`, docs/audiences.md): the condition its messages'
// insert adds, so a subscriber outside the audience gets none. The audience is read where the automation's
// settings are stored; an automation whose audience has been deleted sends to nobody until it is changed.
import type { Queryable } from '../db/database.ts';
import { compileAudienceRule } from './audience-sql.ts';

/**
 * A boolean SQL condition: the subscriber whose id is the SQL expression `subject` is in the automation's audience
 * (`TRUE` when the automation has none), its placeholders numbered from `firstParam`.
 */
export async function automationAudienceGate(
  db: Queryable,
  siteHash: string,
  kind: string,
  subject: string,
  firstParam: number,
): Promise<{ sql: string; params: unknown[] }> {
  const { rows } = await db.query<{ condition: string | null; audience: string | null }>(
    `SELECT a.condition, x.changes->>'audience' AS audience
       FROM automation_settings x LEFT JOIN audiences a ON a.site_hash = x.site_hash AND a.id = x.changes->>'audience'
      WHERE x.site_hash = $1 AND x.kind = $2`,
    [siteHash, kind],
  );
  const row = rows[0];
  if (!row?.audience) return { sql: 'TRUE', params: [] };
  const rule = row.condition === null ? null : compileAudienceRule(row.condition, firstParam);
  if (!rule?.ok) return { sql: 'FALSE', params: [] };
  return { sql: `EXISTS (SELECT 1 FROM subscribers s WHERE s.id = ${subject} AND ${rule.sql})`, params: rule.params };
}
