// The owner's use cases over a site's webhook endpoints, shared by the owner API (routes.ts) and
// `push-kit webhooks` (cli/commands/webhooks.ts). A secret leaves the provider twice only: in the reply that
// creates the endpoint and in the one that rotates it.
import type { Database } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import type { HostedSite } from '../sites.ts';
import {
  WEBHOOK_ENDPOINTS_MAX,
  WEBHOOK_ROTATION_OVERLAP_HOURS,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookEndpointRequest,
  type WebhookEndpointUpdate,
  type WebhookMessage,
} from '../../contract/webhook-events.ts';
import {
  countEndpoints,
  deleteEndpoint,
  endpointAttempts,
  endpointMessages,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  replayMessage,
  rotateEndpointSecret,
  updateEndpoint,
} from './endpoint-store.ts';
import { newWebhookSecret } from './webhook-signing.ts';
import { requireWebhookUrl, type WebhookUrlPolicy } from './webhook-urls.ts';

type Site = Pick<HostedSite, 'hash' | 'name'>;

export function siteWebhooks(db: Database, site: Site, now = Date.now()): Promise<WebhookEndpoint[]> {
  return listEndpoints(db, site.hash, now);
}

export async function siteWebhook(db: Database, site: Site, id: string, now = Date.now()): Promise<WebhookEndpoint> {
  const endpoint = await findEndpoint(db, site.hash, id, now);
  if (!endpoint) throw new ServerError('E_WEBHOOK_UNKNOWN', { param: 'id', id, site: site.name });
  return endpoint;
}

/** Adds an endpoint; its secret is returned this once. */
export async function addSiteWebhook(
  db: Database,
  site: Site,
  input: WebhookEndpointRequest,
  policy: WebhookUrlPolicy,
  now = Date.now(),
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = await requireWebhookUrl(input.url, policy);
  if ((await countEndpoints(db, site.hash)) >= WEBHOOK_ENDPOINTS_MAX) {
    throw new ServerError('E_WEBHOOK_ENDPOINTS_MAX', { site: site.name, max: WEBHOOK_ENDPOINTS_MAX });
  }
  const secret = newWebhookSecret();
  const id = await insertEndpoint(db, site.hash, {
    url,
    events: [...new Set(input.events)],
    description: input.description ?? null,
    secret,
  });
  return { endpoint: await siteWebhook(db, site, id, now), secret };
}

export async function updateSiteWebhook(
  db: Database,
  site: Site,
  id: string,
  change: WebhookEndpointUpdate,
  now = Date.now(),
): Promise<WebhookEndpoint> {
  const events = change.events && [...new Set(change.events)];
  if (!(await updateEndpoint(db, site.hash, id, { ...change, events }, now))) {
    throw new ServerError('E_WEBHOOK_UNKNOWN', { param: 'id', id, site: site.name });
  }
  return siteWebhook(db, site, id, now);
}

export async function removeSiteWebhook(db: Database, site: Site, id: string): Promise<void> {
  if (!(await deleteEndpoint(db, site.hash, id))) throw new ServerError('E_WEBHOOK_UNKNOWN', { param: 'id', id, site: site.name });
}

/** A new secret, returned this once; the old one signs beside it for `overlapHours` (default 24; 0: not at all). */
export async function rotateSiteWebhookSecret(
  db: Database,
  site: Site,
  id: string,
  overlapHours = WEBHOOK_ROTATION_OVERLAP_HOURS,
  now = Date.now(),
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = newWebhookSecret();
  const until = overlapHours > 0 ? now + overlapHours * 3_600_000 : null;
  if (!(await rotateEndpointSecret(db, site.hash, id, secret, until))) {
    throw new ServerError('E_WEBHOOK_UNKNOWN', { param: 'id', id, site: site.name });
  }
  return { endpoint: await siteWebhook(db, site, id, now), secret };
}

/** The endpoint's newest attempts and events, newest first. */
export async function siteWebhookLog(
  db: Database,
  site: Site,
  id: string,
  limit = 50,
): Promise<{ attempts: WebhookAttempt[]; messages: WebhookMessage[] }> {
  await siteWebhook(db, site, id);
  return { attempts: await endpointAttempts(db, id, limit), messages: await endpointMessages(db, id, limit) };
}

/** Sends an event of the endpoint's log again, due now, with a fresh retry window. */
export async function replaySiteWebhookMessage(db: Database, site: Site, id: string, messageId: string, now = Date.now()): Promise<void> {
  await siteWebhook(db, site, id, now);
  if (!(await replayMessage(db, id, messageId, now))) {
    throw new ServerError('E_WEBHOOK_MESSAGE_UNKNOWN', { param: 'messageId', id: messageId, endpointId: id });
  }
}
