// `push-kit webhooks ...`: a site's webhook endpoints (docs/webhooks.md). Straight on the database, or through the
// running provider that holds it (found by itself, or named with --provider and the owner key: cli/provider-route.ts).
//   webhooks [list]                         the endpoints, their events and state (a disabled one says why)
//   webhooks add URL --events E,E|all       a new endpoint; its signing secret is printed this once
//   webhooks remove ID
//   webhooks enable ID / disable ID
//   webhooks rotate-secret ID [--overlap-hours N]   a new secret (printed once); the old one signs for N hours more
//   webhooks log ID [--limit N]             its delivery log: each attempt's status, latency and answer
//   webhooks replay ID MESSAGE_ID           send an event of the log again
import { cliError, fromServerError } from '../errors.ts';
import { configuredSite } from '../configured-site.ts';
import { ownerApiClient, type OwnerApiCall } from '../owner-api-client.ts';
import { openRouteDatabase, routeOf } from '../provider-route.ts';
import type { Database } from '../../server/db/database.ts';
import {
  addSiteWebhook,
  removeSiteWebhook,
  replaySiteWebhookMessage,
  rotateSiteWebhookSecret,
  siteWebhookLog,
  siteWebhooks,
  updateSiteWebhook,
  webhookUrlPolicy,
  webhookUrlProblem,
} from '../../server/webhooks/index.ts';
import type { HostedSite } from '../../server/sites.ts';
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookEndpointCreatedReply,
  type WebhookEndpointReply,
  type WebhookEndpointsReply,
  type WebhookEventType,
  type WebhookLogReply,
  type WebhookMessage,
  type WebhookSecretRotatedReply,
} from '../../contract/webhook-events.ts';

export const WEBHOOK_ACTIONS = ['list', 'add', 'remove', 'enable', 'disable', 'rotate-secret', 'log', 'replay'] as const;
type Action = (typeof WEBHOOK_ACTIONS)[number];

export interface WebhooksOptions {
  site: string;
  events?: string;
  description?: string;
  overlapHours?: string;
  limit?: string;
  database?: string;
  sites?: string[];
  key?: string;
  provider?: string;
  /** `add` on the database: http to loopback allowed (as the provider's flag). */
  allowHttpWebhooks?: boolean;
  webhookPrivateOrigins?: string;
}

function eventsOf(value: string | undefined): WebhookEventType[] {
  if (value === undefined)
    throw cliError('E_ARGUMENT', { option: 'events', rule: `is required: all, or some of ${WEBHOOK_EVENT_TYPES.join(', ')}` });
  if (value.trim() === 'all') return [...WEBHOOK_EVENT_TYPES];
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw cliError('E_ARGUMENT', {
      option: 'events',
      rule: `unknown event ${unknown.map((name) => `"${name}"`).join(', ')}: all, or some of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    });
  }
  return names as WebhookEventType[];
}

function numberOf(option: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(number >= min && number <= max)) throw cliError('E_ARGUMENT', { option, rule: `must be a whole number from ${min} to ${max}` });
  return number;
}

function required(value: string | undefined, what: string, action: Action): string {
  if (value === undefined) throw cliError('E_ARGUMENT', { option: action, rule: `needs ${what}, as push-kit webhooks list shows it` });
  return value;
}

function endpointLines(endpoint: WebhookEndpoint): string[] {
  const state =
    endpoint.status === 'enabled' ? 'enabled' : `DISABLED ${endpoint.disabledAt ?? ''}: ${endpoint.disabledReason ?? 'by the owner'}`;
  return [
    `${endpoint.endpointId.padStart(4)}  ${endpoint.url}`,
    `      ${state}${endpoint.pending ? `, ${endpoint.pending} waiting` : ''}`,
    `      events: ${endpoint.events.join(', ')}`,
    ...(endpoint.description ? [`      ${endpoint.description}`] : []),
    ...(endpoint.previousSecretExpiresAt ? [`      the previous secret also signs until ${endpoint.previousSecretExpiresAt}`] : []),
  ];
}

function attemptLine(attempt: WebhookAttempt): string {
  const status = attempt.statusCode === null ? 'no answer' : `HTTP ${attempt.statusCode}`;
  return `${attempt.attemptedAt}  ${attempt.messageId}  ${attempt.type.padEnd(24)} ${attempt.outcome.padEnd(9)} ${status}, ${attempt.latencyMs} ms: ${JSON.stringify(attempt.response)}`;
}

function messageLine(message: WebhookMessage): string {
  const next = message.nextAttemptAt ? `, next attempt ${message.nextAttemptAt}` : '';
  return `${message.createdAt}  ${message.messageId}  ${message.type.padEnd(24)} ${message.status}, ${message.attempts} attempt${message.attempts === 1 ? '' : 's'}${next}`;
}

interface Backend {
  list(): Promise<WebhookEndpoint[]>;
  add(url: string, events: WebhookEventType[], description: string | undefined): Promise<{ endpoint: WebhookEndpoint; secret: string }>;
  remove(id: string): Promise<void>;
  setEnabled(id: string, enabled: boolean): Promise<WebhookEndpoint>;
  rotate(id: string, overlapHours: number | undefined): Promise<{ endpoint: WebhookEndpoint; secret: string }>;
  log(id: string, limit: number): Promise<{ attempts: WebhookAttempt[]; messages: WebhookMessage[] }>;
  replay(id: string, messageId: string): Promise<void>;
}

function providerBackend(call: OwnerApiCall): Backend {
  return {
    list: async () => (await call<WebhookEndpointsReply>('/webhooks')).endpoints,
    add: (url, events, description) =>
      call<WebhookEndpointCreatedReply>('/webhooks', { method: 'POST', body: { url, events, description } }),
    remove: async (id) => {
      await call(`/webhooks/${id}`, { method: 'DELETE' });
    },
    setEnabled: async (id, enabled) =>
      (await call<WebhookEndpointReply>(`/webhooks/${id}`, { method: 'PATCH', body: { enabled } })).endpoint,
    rotate: (id, overlapHours) =>
      call<WebhookSecretRotatedReply>(`/webhooks/${id}/rotate-secret`, {
        method: 'POST',
        body: overlapHours === undefined ? {} : { overlapHours },
      }),
    log: (id, limit) => call<WebhookLogReply>(`/webhooks/${id}/log?limit=${limit}`),
    replay: async (id, messageId) => {
      await call(`/webhooks/${id}/messages/${messageId}/replay`, { method: 'POST' });
    },
  };
}

function databaseBackend(db: Database, site: HostedSite, options: WebhooksOptions): Backend {
  return {
    list: () => siteWebhooks(db, site),
    add: (url, events, description) =>
      addSiteWebhook(
        db,
        site,
        { url, events, description },
        webhookUrlPolicy({ allowHttp: options.allowHttpWebhooks, privateOrigins: options.webhookPrivateOrigins }),
      ),
    remove: (id) => removeSiteWebhook(db, site, id),
    setEnabled: (id, enabled) => updateSiteWebhook(db, site, id, { enabled }),
    rotate: (id, overlapHours) => rotateSiteWebhookSecret(db, site, id, overlapHours),
    log: (id, limit) => siteWebhookLog(db, site, id, limit),
    replay: (id, messageId) => replaySiteWebhookMessage(db, site, id, messageId),
  };
}

async function run(
  backend: Backend,
  action: Action,
  target: string | undefined,
  extra: string | undefined,
  options: WebhooksOptions,
): Promise<void> {
  switch (action) {
    case 'list': {
      const endpoints = await backend.list();
      if (endpoints.length === 0)
        console.log(`${options.site}: no webhook endpoints (push-kit webhooks add URL --events ... --site ${options.site})`);
      for (const endpoint of endpoints) console.log(endpointLines(endpoint).join('\n'));
      return;
    }
    case 'add': {
      const url = required(target, 'the endpoint URL', action);
      const { endpoint, secret } = await backend.add(url, eventsOf(options.events), options.description);
      console.log(`webhook endpoint ${endpoint.endpointId} added: ${endpoint.url}`);
      console.log(`signing secret (shown once, keep it secret; your receiver verifies with it): ${secret}`);
      return;
    }
    case 'remove':
      await backend.remove(required(target, 'the endpoint id', action));
      console.log(`webhook endpoint ${target} removed, with its waiting events and log`);
      return;
    case 'enable':
    case 'disable': {
      const endpoint = await backend.setEnabled(required(target, 'the endpoint id', action), action === 'enable');
      console.log(endpointLines(endpoint).join('\n'));
      return;
    }
    case 'rotate-secret': {
      const overlap = numberOf('overlap-hours', options.overlapHours, 0, 168);
      const { endpoint, secret } = await backend.rotate(required(target, 'the endpoint id', action), overlap);
      console.log(`new signing secret of webhook endpoint ${endpoint.endpointId} (shown once): ${secret}`);
      console.log(
        endpoint.previousSecretExpiresAt
          ? `the previous secret also signs until ${endpoint.previousSecretExpiresAt}: move your receiver to the new one before then`
          : 'the previous secret no longer signs',
      );
      return;
    }
    case 'log': {
      const { attempts, messages } = await backend.log(
        required(target, 'the endpoint id', action),
        numberOf('limit', options.limit, 1, 500) ?? 20,
      );
      console.log('events, newest first:');
      for (const message of messages) console.log(`  ${messageLine(message)}`);
      console.log('attempts, newest first:');
      for (const attempt of attempts) console.log(`  ${attemptLine(attempt)}`);
      return;
    }
    case 'replay': {
      const id = required(target, 'the endpoint id', action);
      const messageId = required(extra, 'the event id (msg_...) of push-kit webhooks log', action);
      await backend.replay(id, messageId);
      console.log(`event ${messageId} will be sent again to webhook endpoint ${id} (the provider sends it within a second)`);
      return;
    }
  }
}

export async function runWebhooks(
  action: string | undefined,
  target: string | undefined,
  extra: string | undefined,
  options: WebhooksOptions,
): Promise<number> {
  const chosen = (action ?? 'list') as Action;
  if (!WEBHOOK_ACTIONS.includes(chosen))
    throw cliError('E_ARGUMENT', { option: 'action', rule: `must be one of ${WEBHOOK_ACTIONS.join(', ')}` });
  // what the command line can tell wrong before opening anything
  if (chosen === 'add') {
    eventsOf(options.events);
    const policy = webhookUrlPolicy({ allowHttp: options.allowHttpWebhooks, privateOrigins: options.webhookPrivateOrigins });
    const problem = target === undefined ? undefined : webhookUrlProblem(target, policy);
    if (problem) throw cliError('E_WEBHOOK', { problem: `url: ${problem}` });
  }
  numberOf('overlap-hours', options.overlapHours, 0, 168);
  numberOf('limit', options.limit, 1, 500);
  const site = await configuredSite(options.site, options.sites);
  const route = await routeOf(site.name, options, async () => site.config.serverSyncUrl);
  if (route.via === 'provider') {
    await run(providerBackend(ownerApiClient(route.url, site.name, route.key)), chosen, target, extra, options);
    return 0;
  }
  const db = await openRouteDatabase(route, `push-kit webhooks ... --site ${site.name}`);
  try {
    await run(databaseBackend(db, site, options), chosen, target, extra, options);
  } catch (error) {
    fromServerError(error);
  } finally {
    await db.close();
  }
  return 0;
}
