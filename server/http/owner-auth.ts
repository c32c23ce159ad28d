// `Authorization: Bearer <key>` of the owner API: a member's own key (server/members/), checked against the stored
// SHA-256 of the site's members' keys, or this run's provider-file token, which acts as an owner. The owner API's
// site routes share one preValidation hook (ownerSiteHook): it finds the site the path names, finds the member the
// key belongs to and checks the role the route declares (`config: { role }` in its options; a route declaring
// none is refused, whoever asks), once, before the route's schemas look at anything; handlers read the site with
// ownedSite(request). Not onRequest, so the rate limit (a preValidation hook of the root) counts a wrong key
// before the database is asked. A route declaring `config: { audit }` is written to the audit log when it succeeds.
import { createHash, timingSafeEqual } from 'node:crypto';
import { ServerError } from '../errors.ts';
import type { FastifyRequest, onSendAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import type { Queryable } from '../db/database.ts';
import { hashOwnerKey } from './owner-keys.ts';
import { parseParams, SITE_PARAMS } from './params.ts';
import { recordAudit } from './audit-log.ts';

import type { HostedSite } from '../sites.ts';
import type { RouteContext } from './route-context.ts';
import { ROLES, type Role, type SignedInMember } from '../../contract/members.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The least role that may call an owner route (viewer < editor < owner); none declared: refused. */
    role?: Role;
    /** The audit log's action of a successful call (`campaign.create`); none: not a change or send. */
    audit?: string;
  }
}

function bearerKey(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9_-]{1,200})$/.exec(header.trim()) : null;
  if (!match) throw new ServerError('E_OWNER_KEY_MISSING');
  return match[1]!;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Whether `key` is the token of the provider file (server/provider-file.ts), which opens every hosted site. */
function isProviderToken(key: string, token: string | undefined): boolean {
  return token !== undefined && timingSafeEqual(sha256(key), sha256(token));
}

/** Who the provider file's token is in the audit log: an owner of every hosted site. */
export const PROVIDER_TOKEN_MEMBER: SignedInMember = { memberId: null, name: 'provider token', role: 'owner' };

/** The member of the site whose key `key` is, or null. A removed member's key finds nothing at once. */
async function memberByKey(db: Queryable, siteHash: string, key: string): Promise<SignedInMember | null> {
  const { rows } = await db.query<{ id: string; name: string; role: Role }>(
    'SELECT id, name, role FROM site_members WHERE site_hash = $1 AND key_hash = $2',
    [siteHash, hashOwnerKey(key)],
  );
  const row = rows[0];
  return row ? { memberId: row.id, name: row.name, role: row.role } : null;
}

/** The member the request's bearer is on this site (or the provider token's owner); E_OWNER_KEY for anyone else. */
export async function requireMember(
  db: Queryable,
  request: FastifyRequest,
  site: HostedSite,
  providerToken?: string,
): Promise<SignedInMember> {
  const key = bearerKey(request);
  if (isProviderToken(key, providerToken)) return PROVIDER_TOKEN_MEMBER;
  const member = await memberByKey(db, site.hash, key);
  if (!member) throw new ServerError('E_OWNER_KEY', { site: site.name });
  return member;
}

/** Whether `role` opens what `needed` does. */
export function roleReaches(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

function requireRole(request: FastifyRequest, member: SignedInMember, needed: Role | undefined): void {
  const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
  if (needed === undefined || !ROLES.includes(needed)) throw new ServerError('E_ROLE_UNDECLARED', { route });
  if (!roleReaches(member.role, needed)) throw new ServerError('E_ROLE', { route, needed, name: member.name, role: member.role });
}

/** Throws unless the request's bearer is an owner member of the site, or this run's provider-file token. */
export async function requireOwner(db: Queryable, request: FastifyRequest, site: HostedSite, providerToken?: string): Promise<void> {
  const member = await requireMember(db, request, site, providerToken);
  if (!roleReaches(member.role, 'owner')) {
    throw new ServerError('E_ROLE', {
      route: `${request.method} ${request.routeOptions.url ?? request.url}`,
      needed: 'owner',
      name: member.name,
      role: member.role,
    });
  }
}

const ownedSites = new WeakMap<FastifyRequest, { site: HostedSite; member: SignedInMember }>();
const auditTargets = new WeakMap<FastifyRequest, string>();

/**
 * The hook of the routes under `/:name`: the named site opened by the request's key (401) for a member whose role
 * reaches the route's (403). A name no site has is answered exactly like a wrong key, so a caller without a key
 * cannot tell which sites are hosted.
 */
export function ownerSiteHook({ db, registry, providerToken }: RouteContext): preValidationAsyncHookHandler {
  return async (request) => {
    const { name } = parseParams(SITE_PARAMS, request.params);
    const site = registry.byNameOrNull(name);
    if (!site) {
      // the same lookup a wrong key costs (no site has the empty hash), so timing does not tell them apart either
      await memberByKey(db, '', bearerKey(request));
      throw new ServerError('E_OWNER_KEY', { site: name });
    }
    const member = await requireMember(db, request, site, providerToken);
    requireRole(request, member, request.routeOptions.config.role);
    ownedSites.set(request, { site, member });
  };
}

/** The site ownerSiteHook opened for this request. */
export function ownedSite(request: FastifyRequest): HostedSite {
  const owned = ownedSites.get(request);
  if (!owned) throw new Error(`${request.url}: an owner route outside the scope of ownerSiteHook`);
  return owned.site;
}

/** Who made this owner API request (ownerSiteHook found them). */
export function signedInMember(request: FastifyRequest): SignedInMember {
  const owned = ownedSites.get(request);
  if (!owned) throw new Error(`${request.url}: an owner route outside the scope of ownerSiteHook`);
  return owned.member;
}

/** Names what this request's audited change was done to, when the path does not say (a new member's id). */
export function setAuditTarget(request: FastifyRequest, target: string): void {
  auditTargets.set(request, target);
}

/** The ids a reply names of what it made (a new campaign's, an endpoint's), for the audit log. */
function createdId(payload: unknown): string | undefined {
  if (typeof payload !== 'string' || payload.length > 65_536) return undefined;
  try {
    const reply = JSON.parse(payload) as Record<string, unknown>;
    const nested = (key: string, field: string) => (reply[key] as Record<string, unknown> | undefined)?.[field];
    const id = reply.campaignId ?? nested('endpoint', 'endpointId') ?? nested('member', 'memberId') ?? reply.sid ?? reply.keyId;
    return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
  } catch {
    return undefined;
  }
}

/** What a change was done to: the path's ids beyond the site's name, else what the reply says it made. */
function auditTarget(request: FastifyRequest, payload: unknown): string | null {
  const explicit = auditTargets.get(request);
  if (explicit !== undefined) return explicit;
  const params = Object.entries((request.params ?? {}) as Record<string, unknown>).filter(([key]) => key !== 'name');
  if (params.length > 0) return params.map(([key, value]) => `${key}=${String(value)}`).join(' ');
  return createdId(payload) ?? null;
}

/** The owner scope's onSend hook: a successful call of a route declaring `audit` is recorded before its reply leaves. */
export function auditHook(db: Queryable): onSendAsyncHookHandler {
  return async (request, reply, payload) => {
    const action = request.routeOptions.config.audit;
    const owned = ownedSites.get(request);
    if (!action || !owned || reply.statusCode >= 400) return payload;
    await recordAudit(db, owned.site.hash, owned.member, action, auditTarget(request, payload));
    return payload;
  };
}
