// Audiences of a site: a name and a rule over stored data (audience-sql.ts), counted when asked. Nothing of
// the members is stored: a campaign to an audience evaluates the rule when it is created, so it reaches
// whoever matches at that moment.
import type { Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import type { Audience, AudienceCount } from '../../contract/audiences.ts';
import { compileAudienceRule } from './audience-sql.ts';

/** Who a campaign reaches, of the subscribers a rule matches: the same test as server/campaigns/audience.ts. */
const REACHABLE = `s.status = 'subscribed' AND s.endpoint IS NOT NULL`;

/** Counts a rule that compiles (callers check it first): its members and how many of them a campaign reaches. */
export async function countAudienceRule(db: Queryable, siteHash: string, condition: string): Promise<AudienceCount> {
  const rule = compileAudienceRule(condition, 2);
  if (!rule.ok) throw new Error(`audience rule does not compile: ${rule.error.message}`);
  const { rows } = await db.query<{ members: string | number; reachable: string | number }>(
    `SELECT count(*) AS members, count(*) FILTER (WHERE ${REACHABLE}) AS reachable
       FROM subscribers s WHERE s.site_hash = $1 AND ${rule.sql}`,
    [siteHash, ...rule.params],
  );
  return { members: Number(rows[0]!.members), reachable: Number(rows[0]!.reachable) };
}

interface AudienceRow {
  id: string;
  name: string;
  condition: string;
  created_at: Date;
}

export async function listAudiences(db: Queryable, siteHash: string): Promise<Audience[]> {
  const { rows } = await db.query<AudienceRow>('SELECT id, name, condition, created_at FROM audiences WHERE site_hash = $1 ORDER BY id', [
    siteHash,
  ]);
  const audiences: Audience[] = [];
  for (const row of rows) audiences.push(await audienceOf(db, siteHash, row));
  return audiences;
}

async function audienceOf(db: Queryable, siteHash: string, row: AudienceRow): Promise<Audience> {
  return {
    id: row.id,
    name: row.name,
    condition: row.condition,
    createdAt: new Date(row.created_at).toISOString(),
    ...(await countAudienceRule(db, siteHash, row.condition)),
  };
}

/** Stores an audience whose rule compiles (the route's schema checked it); null when the id is taken. */
export async function createAudience(
  db: Queryable,
  siteHash: string,
  input: { id: string; name: string; condition: string },
): Promise<Audience | null> {
  const { rows } = await db.query<AudienceRow>(
    `INSERT INTO audiences (site_hash, id, name, condition) VALUES ($1, $2, $3, $4)
     ON CONFLICT (site_hash, id) DO NOTHING RETURNING id, name, condition, created_at`,
    [siteHash, input.id, input.name, input.condition],
  );
  return rows[0] ? audienceOf(db, siteHash, rows[0]) : null;
}

export async function deleteAudience(db: Queryable, siteHash: string, id: string): Promise<boolean> {
  const { rows } = await db.query('DELETE FROM audiences WHERE site_hash = $1 AND id = $2 RETURNING id', [siteHash, id]);
  return rows.length > 0;
}

/**
 * The SQL condition over `subscribers s` of the site's audience `id`, placeholders from `firstParam`, for a
 * campaign's recipients or its count; 404 E_AUDIENCE_UNKNOWN naming `param` when the site has no such audience.
 */
export async function audienceFilter(
  db: Queryable,
  site: { hash: string; name?: string },
  id: string,
  firstParam: number,
  param = 'audience',
): Promise<{ sql: string; params: unknown[] }> {
  const { rows } = await db.query<{ condition: string }>('SELECT condition FROM audiences WHERE site_hash = $1 AND id = $2', [
    site.hash,
    id,
  ]);
  if (!rows[0]) throw new ServerError('E_AUDIENCE_UNKNOWN', { param, id, site: site.name ?? '' });
  const rule = compileAudienceRule(rows[0].condition, firstParam);
  // a stored rule compiled when it was stored; a later provider that reads it otherwise refuses it by name
  if (!rule.ok) throw new ServerError('E_PARAM_INVALID', { param, problem: `audience ${id}: ${rule.error.message}` });
  return { sql: rule.sql, params: rule.params };
}

/** "The audience a call names is stored on this site, or the call is refused" (404 E_AUDIENCE_UNKNOWN naming `param`). */
export async function requireAudience(db: Queryable, site: { hash: string; name: string }, id: string, param: string): Promise<void> {
  const { rows } = await db.query('SELECT 1 FROM audiences WHERE site_hash = $1 AND id = $2', [site.hash, id]);
  if (rows.length === 0) throw new ServerError('E_AUDIENCE_UNKNOWN', { param, id, site: site.name });
}
