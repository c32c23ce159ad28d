// The route table of the provider's site calls and owner API (issue 9, "Server input"): each route's method, how
// its parameters travel, a request that succeeds, the parameter naming the site, and whether it answers JSONP.
// tests/integration/server-input.test.ts drives its bad-input rows over it; a request is built by requestOf().
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.ts';
import { SITE_HASH } from './server.ts';

/** The previous service's key pair a test import brings. */
const IMPORTED_KEY = generateVapidKeyPair();

export type Fields = Record<string, unknown>;
/** How a route's parameters travel. */
export type Carrier = 'query' | 'form' | 'json' | 'beacon' | 'path';

export interface Route {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  carrier: Carrier;
  /** The path; for `path` routes built from the fields. */
  path: (fields: Fields) => string;
  /** A request that succeeds; rows change or remove one field. */
  valid: () => Fields;
  /** The parameter carrying the site hash. */
  hashParam: string;
  /** Whether the call answers JSONP when given a callback. */
  jsonp: boolean;
  headers?: () => Record<string, string>;
  /** Fields that travel in the path, not in the query or body. */
  pathParams?: string[];
  /** The field carrying the site when it differs from the parameter the message names. */
  hashField?: string;
  /** The message of an unknown site; default "unknown site hash". */
  unknownSite?: string;
  /** The parameter naming a subscriber, for the "subscriber of another site" row. */
  subscriberParam?: string;
  /** The owner API: rows without the key, with a wrong key and with another site's key. */
  owner?: boolean;
  /** A body sent as it is (a file) with the query carrier: its content type and text. */
  body?: () => { contentType: string; payload: string };
  /** Creates what the valid request uses up (a subscriber to delete). */
  setup?: () => Promise<void>;
}

/** What the valid requests name: a subscriber of the test site and one of the other site, a campaign, an order. */
export interface RouteFixture {
  subscriberId: string;
  secret: string;
  endpoint: string;
  otherSubscriberId: string;
  campaignId: string;
  orderId: string;
  /** The subscriber the DELETE row uses up, made by its set-up. */
  victimId: string;
}

export interface RouteTableContext {
  /** Filled before the rows run; read when a request is built. */
  fixture: RouteFixture;
  /** The test site's owner key. */
  ownerKey(): string;
  /** Stores a new subscriber of the test site; resolves its id. */
  insertSubscriber(): Promise<string>;
  /** Sends a request to the provider (the set-ups of rows that use something up). */
  inject(request: InjectOptions): Promise<LightMyRequestResponse>;
}

export function encodeQuery(fields: Fields): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    for (const one of [value].flat()) search.append(key, String(one));
  }
  return search.toString();
}

export function requestOf(route: Route, allFields: Fields, extraQuery: Fields = {}): InjectOptions {
  const headers = { ...route.headers?.() };
  const fields = Object.fromEntries(Object.entries(allFields).filter(([key]) => !route.pathParams?.includes(key)));
  const url = route.path(allFields);
  const query = encodeQuery(extraQuery);
  const withQuery = (url: string, more: string) => (more ? `${url}${url.includes('?') ? '&' : '?'}${more}` : url);
  switch (route.carrier) {
    case 'query': {
      const body = route.body?.();
      return {
        method: route.method,
        url: withQuery(withQuery(url, encodeQuery(fields)), query),
        headers: body ? { ...headers, 'content-type': body.contentType } : headers,
        ...(body ? { payload: body.payload } : {}),
      };
    }
    case 'beacon':
      return {
        method: 'POST',
        url: withQuery(withQuery(url, encodeQuery(fields)), query),
        headers: { ...headers, 'content-type': 'text/plain;charset=UTF-8' },
        payload: '',
      };
    case 'form':
      return {
        method: 'POST',
        url: withQuery(url, query),
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        payload: encodeQuery(fields),
      };
    case 'json':
      return {
        method: route.method,
        url: withQuery(url, query),
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify(fields),
      };
    case 'path':
      return { method: route.method, url: withQuery(url, query), headers };
  }
}

/** The site calls (`routes`) and the owner API (`ownerRoutes`) of the provider, over the test's fixture. */
export function routeTable(context: RouteTableContext): { routes: Route[]; ownerRoutes: Route[] } {
  const { fixture } = context;
  const routes: Route[] = [
    {
      name: 'POST /syncSubscriptionAction.php',
      method: 'POST',
      carrier: 'form',
      path: () => '/syncSubscriptionAction.php',
      valid: () => ({
        hash: SITE_HASH,
        action: 'http-sync',
        subscriberId: fixture.subscriberId,
        subscriberSecret: fixture.secret,
        userLanguage: 'en-GB',
        userTimezoneOffset: '-60',
      }),
      hashParam: 'hash',
      jsonp: true,
    },
    {
      name: 'POST /syncSubscriptionAction.php (JSON body)',
      method: 'POST',
      carrier: 'json',
      path: () => '/syncSubscriptionAction.php',
      valid: () => ({
        hash: SITE_HASH,
        action: 'http-sync',
        subscriberId: fixture.subscriberId,
        subscriberSecret: fixture.secret,
        userTimezoneOffset: '-60',
      }),
      hashParam: 'hash',
      jsonp: true,
    },
    {
      name: 'GET /as',
      method: 'GET',
      carrier: 'query',
      path: () => '/as',
      valid: () => ({
        id: 'sale',
        customer_hash: SITE_HASH,
        'subscriber_list[]': [fixture.subscriberId],
        'subscriberSecret[]': [fixture.secret],
        customTag: 'footer',
      }),
      hashParam: 'customer_hash',
      jsonp: true,
    },
    {
      name: 'GET /tags',
      method: 'GET',
      carrier: 'query',
      path: () => '/tags',
      valid: () => ({
        hash: SITE_HASH,
        subscriberId: fixture.subscriberId,
        subscriberSecret: fixture.secret,
        tags: JSON.stringify({ plan: 'gold', visits: 3 }),
      }),
      hashParam: 'hash',
      jsonp: true,
    },
    {
      name: 'POST /tags (sendBeacon)',
      method: 'POST',
      carrier: 'beacon',
      path: () => '/tags',
      valid: () => ({
        hash: SITE_HASH,
        subscriberId: fixture.subscriberId,
        subscriberSecret: fixture.secret,
        tags: JSON.stringify({ lastPage: 'checkout' }),
      }),
      hashParam: 'hash',
      jsonp: true,
    },
    {
      name: 'GET /dyn',
      method: 'GET',
      carrier: 'query',
      path: () => '/dyn',
      valid: () => ({ hash: SITE_HASH, subscriberId: fixture.subscriberId, subscriberSecret: fixture.secret }),
      hashParam: 'hash',
      jsonp: true,
    },
    {
      name: 'GET /getSubscriberAttributes.php',
      method: 'GET',
      carrier: 'query',
      path: () => '/getSubscriberAttributes.php',
      valid: () => ({
        hash: SITE_HASH,
        subscriberId: fixture.subscriberId,
        subscriberSecret: fixture.secret,
        customDimensions: 'plan,city',
        browser: 'chrome',
      }),
      hashParam: 'hash',
      jsonp: true,
    },
    {
      name: 'GET /getSubscriptionClickTrackingPermissionDetails.php',
      method: 'GET',
      carrier: 'query',
      path: () => '/getSubscriptionClickTrackingPermissionDetails.php',
      valid: () => ({ customerHash: SITE_HASH, subscriberId: fixture.subscriberId, subscriberSecret: fixture.secret, browser: 'chrome' }),
      hashParam: 'customerHash',
      jsonp: true,
    },
    {
      name: 'GET /c.gif',
      method: 'GET',
      carrier: 'query',
      path: () => '/c.gif',
      valid: () => ({
        hash: SITE_HASH,
        subscriberId: fixture.subscriberId,
        subscriberSecret: fixture.secret,
        subscriptionId: 'sub-1',
        segment: 'clicked',
        action: 'add-segment',
      }),
      hashParam: 'hash',
      jsonp: false,
    },
    {
      name: 'POST /api/v1/shopify/orders',
      method: 'POST',
      carrier: 'json',
      path: () => '/api/v1/shopify/orders',
      valid: () => ({
        hash: SITE_HASH,
        orderId: 'order-2002',
        order: {
          total: 42.5,
          coupon: 'SPRING',
          items: [{ pId: 'p-1', pName: 'Notebook', pPrice: 21.25, pQuant: 2, pImgUrl: 'https://letters.example/notebook.png' }],
        },
      }),
      hashParam: 'hash',
      jsonp: false,
      headers: () => ({ authorization: `Bearer ${context.ownerKey()}` }),
    },
    {
      name: 'POST /api/v1/shopify/cart',
      method: 'POST',
      carrier: 'form',
      path: () => '/api/v1/shopify/cart',
      valid: () => ({
        hash: SITE_HASH,
        subscriberId: fixture.subscriberId,
        subscriberSecret: fixture.secret,
        pId: '42',
        pName: 'Ink pot',
        price: '12.99',
        pUrl: '/products/ink-pot',
        pImgUrl: 'https://letters.example/ink.png',
      }),
      hashParam: 'hash',
      jsonp: false,
    },
    {
      name: 'POST /api/v1/shopify/view',
      method: 'POST',
      carrier: 'form',
      path: () => '/api/v1/shopify/view',
      valid: () => ({ hash: SITE_HASH, subscriberId: fixture.subscriberId, subscriberSecret: fixture.secret, pId: '42' }),
      hashParam: 'hash',
      jsonp: false,
    },
    {
      name: 'GET /api/v1/shopify/getOrderDetails',
      method: 'GET',
      carrier: 'query',
      path: () => '/api/v1/shopify/getOrderDetails',
      valid: () => ({ hash: SITE_HASH, orderId: fixture.orderId, subscriberId: fixture.subscriberId, subscriberSecret: fixture.secret }),
      hashParam: 'hash',
      jsonp: true,
    },
    {
      name: 'POST /notificationEvent',
      method: 'POST',
      carrier: 'json',
      path: () => '/notificationEvent',
      valid: () => ({ hash: SITE_HASH, campaignId: fixture.campaignId, endpoint: fixture.endpoint, event: 'shown' }),
      hashParam: 'hash',
      jsonp: false,
    },
    {
      name: 'GET /sites/:hash/child-window.html',
      method: 'GET',
      carrier: 'path',
      path: (fields) => `/sites/${encodeURIComponent(String(fields.hash))}/child-window.html`,
      valid: () => ({ hash: SITE_HASH }),
      hashParam: 'hash',
      jsonp: false,
    },
    {
      name: 'GET /sites/:hash/:worker',
      method: 'GET',
      carrier: 'path',
      path: (fields) => `/sites/${encodeURIComponent(String(fields.hash))}/${encodeURIComponent(String(fields.worker))}`,
      valid: () => ({ hash: SITE_HASH, worker: 'sw.js' }),
      hashParam: 'hash',
      jsonp: false,
    },
  ];

  /** The field of the site name in the owner API's path (`name` is a segment's name in a body). */
  const SITE_FIELD = ':name';

  /** An owner API call: `:param`s of the template come from the fields, the rest travel as `carrier` says. */
  function ownerRoute(method: Route['method'], template: string, carrier: Carrier, valid: () => Fields, extra: Partial<Route> = {}): Route {
    const pathParams = [...template.matchAll(/:(\w+)/g)].map((match) => match[1]!);
    return {
      name: `${method} /api/v1/sites/:name${template}`,
      method,
      carrier,
      path: (fields) =>
        `/api/v1/sites/${encodeURIComponent(String(fields[SITE_FIELD]))}${template.replace(/:(\w+)/g, (_, key: string) => encodeURIComponent(String(fields[key])))}`,
      valid: () => ({ [SITE_FIELD]: 'letters', ...valid() }),
      hashParam: 'name',
      hashField: SITE_FIELD,
      // a name no site has answers as a wrong key: the owner API does not tell which sites are hosted
      unknownSite: 'wrong owner key for site',
      jsonp: false,
      headers: () => ({ authorization: `Bearer ${context.ownerKey()}` }),
      pathParams: [SITE_FIELD, ...pathParams],
      owner: true,
      ...extra,
    };
  }

  /** The team member the valid request of a member route uses up (removes, gives a new key), made by its set-up. */
  let teamMember = '';
  const addTeamMember = async () => {
    const reply = await context.inject({
      method: 'POST',
      url: '/api/v1/sites/letters/members',
      headers: { authorization: `Bearer ${context.ownerKey()}` },
      payload: { name: 'Leaving', role: 'viewer' },
    });
    teamMember = (reply.json() as { member: { memberId: string } }).member.memberId;
  };

  /** The webhook endpoint (and one event of its log) the valid request of a webhook route uses, made by its set-up. */
  const webhook = { id: '', messageId: '' };
  const addWebhook = async () => {
    const owner = { authorization: `Bearer ${context.ownerKey()}` };
    const reply = await context.inject({
      method: 'POST',
      url: '/api/v1/sites/letters/webhooks',
      headers: owner,
      payload: { url: 'https://203.0.113.9/hook', events: ['subscriber.created'] },
    });
    webhook.id = (reply.json() as { endpoint: { endpointId: string } }).endpoint.endpointId;
    await context.insertSubscriber();
    const log = await context.inject({ method: 'GET', url: `/api/v1/sites/letters/webhooks/${webhook.id}/log`, headers: owner });
    webhook.messageId = (log.json() as { messages: { messageId: string }[] }).messages[0]?.messageId ?? '';
  };

  /** The feed the valid request of a feed route removes, made by its set-up. */
  let feedId = '';
  const addFeed = async () => {
    const reply = await context.inject({
      method: 'POST',
      url: '/api/v1/sites/letters/feeds',
      headers: { authorization: `Bearer ${context.ownerKey()}` },
      payload: { url: 'https://203.0.113.9/leaving.xml' },
    });
    feedId = (reply.json() as { feed: { feedId: string } }).feed.feedId;
  };

  /** A draft the valid requests of save and delete use, made by their set-up. */
  let draftId = '';
  const addDraft = async () => {
    const reply = await context.inject({
      method: 'POST',
      url: '/api/v1/sites/letters/drafts',
      headers: { authorization: `Bearer ${context.ownerKey()}` },
      payload: { name: 'Half-written', content: { title: 'Half' } },
    });
    draftId = (reply.json() as { draft: { draftId: string } }).draft.draftId;
  };
  /** A test device the valid request of its removal forgets, registered by its set-up. */
  let testDeviceId = '';
  const addTestDevice = async () => {
    const reply = await context.inject({
      method: 'PUT',
      url: '/api/v1/sites/letters/test-devices',
      headers: { authorization: `Bearer ${context.ownerKey()}` },
      payload: { endpoint: 'https://fcm.googleapis.com/fcm/send/leaving-device', keys: { p256dh: 'BAAA', auth: 'AAAA' } },
    });
    testDeviceId = (reply.json() as { device: { deviceId: string } }).device.deviceId;
  };

  /** The legacy key the valid request of the retire route removes, put on the ring by its set-up. */
  let legacyKey = '';
  const addLegacyKey = async () => {
    const reply = await context.inject({
      method: 'POST',
      url: '/api/v1/sites/letters/imports/vapid-key',
      headers: { authorization: `Bearer ${context.ownerKey()}` },
      payload: generateVapidKeyPair(),
    });
    legacyKey = (reply.json() as { keyId: string }).keyId;
  };

  const ownerRoutes: Route[] = [
    ownerRoute('GET', '/subscribers', 'query', () => ({
      limit: '10',
      offset: '0',
      status: 'subscribed',
      segment: 'news',
      order: 'newest',
      search: 'fcm',
    })),
    ownerRoute('GET', '/stats', 'query', () => ({ days: '7' })),
    ownerRoute('GET', '/audience', 'query', () => ({ segment: 'news' })),
    ownerRoute('GET', '/subscribers/count', 'query', () => ({})),
    ownerRoute('GET', '/subscribers/:id', 'path', () => ({ id: fixture.subscriberId }), { subscriberParam: 'id' }),
    ownerRoute('GET', '/subscribers.csv', 'query', () => ({ status: 'subscribed', search: 'push', order: 'lastSeen' })),
    ownerRoute('GET', '/subscribers/:id/export', 'path', () => ({ id: fixture.subscriberId }), { subscriberParam: 'id' }),
    ownerRoute('DELETE', '/subscribers/:id', 'path', () => ({ id: fixture.victimId }), {
      subscriberParam: 'id',
      setup: async () => {
        fixture.victimId = await context.insertSubscriber();
      },
    }),
    ownerRoute('PUT', '/subscribers/:id/dimensions', 'json', () => ({ id: fixture.subscriberId, city: 'Lisbon', visits: 3 }), {
      subscriberParam: 'id',
    }),
    ownerRoute('GET', '/segments', 'query', () => ({})),
    ownerRoute('POST', '/segments', 'json', () => ({ sid: 'fresh-segment', name: 'Fresh', condition: 'url contains "/pricing"' })),
    ownerRoute('POST', '/conditions/check', 'json', () => ({ condition: 'url contains "/pricing"' })),
    ownerRoute('GET', '/audiences', 'query', () => ({})),
    ownerRoute('POST', '/audiences', 'json', () => ({ id: 'fresh-audience', name: 'Fresh', condition: 'tag.plan == "pro"' })),
    ownerRoute('POST', '/audiences/check', 'json', () => ({ condition: 'language startsWith "de"' })),
    ownerRoute('DELETE', '/audiences/:id', 'path', () => ({ id: 'victim' }), {
      setup: async () => {
        await context.inject({
          method: 'POST',
          url: '/api/v1/sites/letters/audiences',
          headers: { authorization: `Bearer ${context.ownerKey()}` },
          payload: { id: 'victim', condition: 'language == "de"' },
        });
      },
    }),
    ownerRoute('PUT', '/segments/:sid/members/:id', 'path', () => ({ sid: 'news', id: fixture.subscriberId }), { subscriberParam: 'id' }),
    ownerRoute('DELETE', '/segments/:sid/members/:id', 'path', () => ({ sid: 'news', id: fixture.subscriberId }), {
      subscriberParam: 'id',
      setup: async () => {
        await context.inject({
          method: 'PUT',
          url: `/api/v1/sites/letters/segments/news/members/${fixture.subscriberId}`,
          headers: { authorization: `Bearer ${context.ownerKey()}` },
        });
      },
    }),
    ownerRoute('DELETE', '/segments/:sid', 'path', () => ({ sid: 'victim' }), {
      setup: async () => {
        await context.inject({
          method: 'POST',
          url: '/api/v1/sites/letters/segments',
          headers: { authorization: `Bearer ${context.ownerKey()}` },
          payload: { sid: 'victim' },
        });
      },
    }),
    ownerRoute('POST', '/campaigns', 'json', () => ({
      title: 'Spring sale',
      body: 'Everything half price',
      url: 'https://letters.example/sale',
      actions: [{ action: 'open', title: 'Open' }],
      segment: 'news',
      ttl: 3600,
      urgency: 'high',
    })),
    ownerRoute('GET', '/campaigns', 'query', () => ({ limit: '5', offset: '0' })),
    ownerRoute('GET', '/campaigns/:id', 'path', () => ({ id: fixture.campaignId })),
    ownerRoute('GET', '/campaigns/:id/figures', 'path', () => ({ id: fixture.campaignId })),
    ownerRoute('GET', '/campaigns/:id/results.csv', 'path', () => ({ id: fixture.campaignId })),
    ownerRoute('POST', '/campaigns/:id/resend', 'path', () => ({ id: fixture.campaignId })),
    ownerRoute('GET', '/automations', 'query', () => ({})),
    ownerRoute('GET', '/automations/:kind', 'path', () => ({ kind: 'welcome' })),
    ownerRoute('PATCH', '/automations/:kind', 'json', () => ({ kind: 'abandonedCart', delayMinutes: 120, url: null })),
    ownerRoute('POST', '/products', 'json', () => ({
      products: [{ id: '42', name: 'Ink pot', url: 'https://letters.example/ink-pot', price: 12.99, currency: 'EUR', inStock: true }],
    })),
    ownerRoute('GET', '/subscriber-health', 'query', () => ({ days: '7', deliveries: '3' })),
    ownerRoute('POST', '/campaigns/:id/cancel', 'path', () => ({ id: fixture.campaignId })),
    ownerRoute('POST', '/imports', 'query', () => ({ format: 'csv', dryRun: '1' }), {
      body: () => ({ contentType: 'text/csv', payload: `endpoint,p256dh,auth\n${fixture.endpoint},BAAA,AAAA\n` }),
    }),
    ownerRoute('POST', '/imports/vapid-key', 'json', () => ({ ...IMPORTED_KEY })),
    ownerRoute('GET', '/vapid-keys', 'query', () => ({})),
    ownerRoute('POST', '/vapid-keys/rotate', 'query', () => ({})),
    ownerRoute('DELETE', '/vapid-keys/:key', 'path', () => ({ key: legacyKey }), { setup: addLegacyKey }),
    ownerRoute('GET', '/me', 'query', () => ({})),
    ownerRoute('GET', '/members', 'query', () => ({})),
    ownerRoute('POST', '/members', 'json', () => ({ name: 'Ana', role: 'editor' })),
    ownerRoute('PATCH', '/members/:id', 'json', () => ({ id: 'owner', role: 'owner' })),
    ownerRoute('DELETE', '/members/:id', 'path', () => ({ id: teamMember }), { setup: addTeamMember }),
    ownerRoute('POST', '/members/:id/key', 'path', () => ({ id: teamMember }), { setup: addTeamMember }),
    ownerRoute('GET', '/audit', 'query', () => ({ limit: '10', offset: '0' })),
    ownerRoute('GET', '/webhooks', 'query', () => ({})),
    ownerRoute('POST', '/webhooks', 'json', () => ({ url: 'https://203.0.113.9/hook', events: ['subscriber.created', 'conversion'] }), {
      setup: async () => {
        // room for the next one (a site has at most 20)
        for (const id of [webhook.id].filter(Boolean)) {
          await context.inject({
            method: 'DELETE',
            url: `/api/v1/sites/letters/webhooks/${id}`,
            headers: { authorization: `Bearer ${context.ownerKey()}` },
          });
        }
      },
    }),
    ownerRoute('GET', '/webhooks/:id', 'path', () => ({ id: webhook.id }), { setup: addWebhook }),
    ownerRoute('PATCH', '/webhooks/:id', 'json', () => ({ id: webhook.id, enabled: false, description: 'CRM' }), { setup: addWebhook }),
    ownerRoute('DELETE', '/webhooks/:id', 'path', () => ({ id: webhook.id }), { setup: addWebhook }),
    ownerRoute('POST', '/webhooks/:id/rotate-secret', 'json', () => ({ id: webhook.id, overlapHours: 2 }), { setup: addWebhook }),
    ownerRoute('GET', '/webhooks/:id/log', 'query', () => ({ id: webhook.id, limit: '10' }), { setup: addWebhook }),
    ownerRoute('GET', '/feeds', 'query', () => ({})),
    ownerRoute('POST', '/feeds', 'json', () => ({
      url: 'https://203.0.113.9/feed.xml',
      segment: 'news',
      intervalMinutes: 30,
      mode: 'digest',
    })),
    ownerRoute('DELETE', '/feeds/:id', 'path', () => ({ id: feedId }), { setup: addFeed }),
    ownerRoute('GET', '/drafts', 'query', () => ({ kind: 'template' })),
    ownerRoute('POST', '/drafts', 'json', () => ({ kind: 'draft', name: 'Spring letters', content: { title: 'Spring letters' } })),
    ownerRoute('PUT', '/drafts/:id', 'json', () => ({ id: draftId, name: 'Spring', content: { title: 'Spring', body: 'Twelve' } }), {
      setup: addDraft,
    }),
    ownerRoute('DELETE', '/drafts/:id', 'path', () => ({ id: draftId }), { setup: addDraft }),
    ownerRoute('GET', '/test-devices', 'query', () => ({})),
    ownerRoute('PUT', '/test-devices', 'json', () => ({
      endpoint: 'https://fcm.googleapis.com/fcm/send/dashboard-tab',
      keys: {
        p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
        auth: 'tBHItJI5svbpez7KI4CCXg',
      },
      label: 'Chromium on Linux',
    })),
    ownerRoute('DELETE', '/test-devices/:id', 'path', () => ({ id: testDeviceId }), { setup: addTestDevice }),
    ownerRoute('POST', '/webhooks/:id/messages/:messageId/replay', 'path', () => ({ id: webhook.id, messageId: webhook.messageId }), {
      setup: addWebhook,
    }),
  ];

  return { routes, ownerRoutes };
}
