// `Authorization: Bearer <key>` of the owner API, checked against the site's stored key hash.
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../store/database.ts';
import { isOwnerKey } from '../store/owner-keys.ts';
import { RequestError } from './reply.ts';
import type { HostedSite } from '../sites.ts';

export async function requireOwner(db: Queryable, request: FastifyRequest, site: HostedSite): Promise<void> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9_-]{1,200})$/.exec(header.trim()) : null;
  if (!match) throw new RequestError('E_OWNER_KEY_MISSING');
  if (!(await isOwnerKey(db, site, match[1]!))) throw new RequestError('E_OWNER_KEY', { site: site.name });
}
