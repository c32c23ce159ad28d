// Issue 30, "A team per site": every owner route declares the least role that may call it, and the owner scope
// checks it on the server. Table-driven over every registered owner route (ownerRoutesOf, so a route added
// without a row here fails the first test): each role below the route's gets 403, each at or above it gets
// through (not 401 or 403). Then the attacks: a viewer exporting subscribers, an editor adding a member or
// rotating keys, a removed member's key, a sign-in link used twice, another site's member key; the audit log
// (who, what, when) and the site's owner key of before the members, which stays an owner. One provider for the file.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.ts';
import { ownerApi, ownerRoutesOf } from '../../server/http/owner-api.ts';
import { SiteRegistry } from '../../server/http/site-access.ts';
import { MIGRATIONS } from '../../server/db/migrations.ts';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import { PushServiceAllowlist } from '../../server/push/push-services.ts';
import { systemClock } from '../../server/clock.ts';
import { serializerCompiler, validatorCompiler } from '../../server/http/route-schemas.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import { vapidKeyFile } from '../../server/state-paths.ts';
import { requestOf, routeTable, type Route, type RouteFixture } from '../support/route-table.ts';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { insertSubscriber, tempDir, testSite } from '../support/server.ts';
import { ROLES, type AuditReply, type MemberCreatedReply, type Role } from '../../contract/members.ts';

/** The role each owner route needs: what the docs (docs/members.md) promise, checked against what routes declare. */
const EXPECTED: Record<string, Role> = {
  'GET /api/v1/sites/:name/subscribers': 'editor',
  'GET /api/v1/sites/:name/subscribers/count': 'viewer',
  'GET /api/v1/sites/:name/subscribers.csv': 'owner',
  'GET /api/v1/sites/:name/subscribers/:id': 'editor',
  'GET /api/v1/sites/:name/subscribers/:id/export': 'owner',
  'DELETE /api/v1/sites/:name/subscribers/:id': 'owner',
  'PUT /api/v1/sites/:name/subscribers/:id/dimensions': 'editor',
  'GET /api/v1/sites/:name/subscriber-health': 'viewer',
  'GET /api/v1/sites/:name/segments': 'viewer',
  'POST /api/v1/sites/:name/segments': 'editor',
  'PUT /api/v1/sites/:name/segments/:sid/members/:id': 'editor',
  'DELETE /api/v1/sites/:name/segments/:sid/members/:id': 'editor',
  'DELETE /api/v1/sites/:name/segments/:sid': 'editor',
  'POST /api/v1/sites/:name/conditions/check': 'editor',
  'GET /api/v1/sites/:name/audiences': 'viewer',
  'POST /api/v1/sites/:name/audiences': 'editor',
  'DELETE /api/v1/sites/:name/audiences/:id': 'editor',
  'POST /api/v1/sites/:name/audiences/check': 'editor',
  'POST /api/v1/sites/:name/campaigns': 'editor',
  'GET /api/v1/sites/:name/campaigns': 'viewer',
  'POST /api/v1/sites/:name/campaigns/:id/cancel': 'editor',
  'GET /api/v1/sites/:name/campaigns/:id': 'viewer',
  'GET /api/v1/sites/:name/campaigns/:id/figures': 'viewer',
  'GET /api/v1/sites/:name/campaigns/:id/results.csv': 'viewer',
  'POST /api/v1/sites/:name/campaigns/:id/resend': 'editor',
  'GET /api/v1/sites/:name/audience': 'editor',
  'GET /api/v1/sites/:name/stats': 'viewer',
  'GET /api/v1/sites/:name/automations': 'viewer',
  'GET /api/v1/sites/:name/automations/:kind': 'viewer',
  'PATCH /api/v1/sites/:name/automations/:kind': 'editor',
  'POST /api/v1/sites/:name/products': 'editor',
  'GET /api/v1/sites/:name/webhooks': 'owner',
  'POST /api/v1/sites/:name/webhooks': 'owner',
  'GET /api/v1/sites/:name/webhooks/:id': 'owner',
  'PATCH /api/v1/sites/:name/webhooks/:id': 'owner',
  'DELETE /api/v1/sites/:name/webhooks/:id': 'owner',
  'POST /api/v1/sites/:name/webhooks/:id/rotate-secret': 'owner',
  'GET /api/v1/sites/:name/webhooks/:id/log': 'owner',
  'POST /api/v1/sites/:name/webhooks/:id/messages/:messageId/replay': 'owner',
  'POST /api/v1/sites/:name/imports': 'owner',
  'POST /api/v1/sites/:name/imports/vapid-key': 'owner',
  'GET /api/v1/sites/:name/vapid-keys': 'owner',
  'POST /api/v1/sites/:name/vapid-keys/rotate': 'owner',
  'DELETE /api/v1/sites/:name/vapid-keys/:key': 'owner',
  'GET /api/v1/sites/:name/me': 'viewer',
  'GET /api/v1/sites/:name/members': 'owner',
  'POST /api/v1/sites/:name/members': 'owner',
  'PATCH /api/v1/sites/:name/members/:id': 'owner',
  'DELETE /api/v1/sites/:name/members/:id': 'owner',
  'POST /api/v1/sites/:name/members/:id/key': 'owner',
  'GET /api/v1/sites/:name/audit': 'owner',
  'GET /api/v1/sites/:name/feeds': 'viewer',
  'POST /api/v1/sites/:name/feeds': 'editor',
  'DELETE /api/v1/sites/:name/feeds/:id': 'editor',
  'GET /api/v1/sites/:name/drafts': 'viewer',
  'POST /api/v1/sites/:name/drafts': 'editor',
  'PUT /api/v1/sites/:name/drafts/:id': 'editor',
  'DELETE /api/v1/sites/:name/drafts/:id': 'editor',
  'GET /api/v1/sites/:name/test-devices': 'editor',
  'PUT /api/v1/sites/:name/test-devices': 'editor',
  'DELETE /api/v1/sites/:name/test-devices/:id': 'editor',
  'POST /api/v1/sites/:name/test-sends': 'editor',
};

const SITE = '/api/v1/sites/letters';
/** Requests of the owner routes the shared route table (tests/support/route-table.ts) has no row for. */
const MORE: Record<string, () => InjectOptions> = {
  'GET /api/v1/sites/:name/webhooks': () => ({ method: 'GET', url: `${SITE}/webhooks` }),
  'POST /api/v1/sites/:name/webhooks': () => ({
    method: 'POST',
    url: `${SITE}/webhooks`,
    payload: { url: 'https://hooks.letters.example/push', events: ['conversion'] },
  }),
  'GET /api/v1/sites/:name/webhooks/:id': () => ({ method: 'GET', url: `${SITE}/webhooks/999` }),
  'PATCH /api/v1/sites/:name/webhooks/:id': () => ({ method: 'PATCH', url: `${SITE}/webhooks/999`, payload: { enabled: false } }),
  'DELETE /api/v1/sites/:name/webhooks/:id': () => ({ method: 'DELETE', url: `${SITE}/webhooks/999` }),
  'POST /api/v1/sites/:name/webhooks/:id/rotate-secret': () => ({ method: 'POST', url: `${SITE}/webhooks/999/rotate-secret`, payload: {} }),
  'GET /api/v1/sites/:name/webhooks/:id/log': () => ({ method: 'GET', url: `${SITE}/webhooks/999/log` }),
  'POST /api/v1/sites/:name/webhooks/:id/messages/:messageId/replay': () => ({
    method: 'POST',
    url: `${SITE}/webhooks/999/messages/msg_abc/replay`,
  }),
  'GET /api/v1/sites/:name/vapid-keys': () => ({ method: 'GET', url: `${SITE}/vapid-keys` }),
  'POST /api/v1/sites/:name/vapid-keys/rotate': () => ({ method: 'POST', url: `${SITE}/vapid-keys/rotate` }),
  'DELETE /api/v1/sites/:name/vapid-keys/:key': () => ({ method: 'DELETE', url: `${SITE}/vapid-keys/no-such-key` }),
  'GET /api/v1/sites/:name/me': () => ({ method: 'GET', url: `${SITE}/me` }),
  'GET /api/v1/sites/:name/members': () => ({ method: 'GET', url: `${SITE}/members` }),
  'POST /api/v1/sites/:name/members': () => ({ method: 'POST', url: `${SITE}/members`, payload: { name: 'Temp', role: 'viewer' } }),
  'PATCH /api/v1/sites/:name/members/:id': () => ({ method: 'PATCH', url: `${SITE}/members/m_none`, payload: { role: 'viewer' } }),
  'DELETE /api/v1/sites/:name/members/:id': () => ({ method: 'DELETE', url: `${SITE}/members/m_none` }),
  'POST /api/v1/sites/:name/members/:id/key': () => ({ method: 'POST', url: `${SITE}/members/m_none/key` }),
  'GET /api/v1/sites/:name/audit': () => ({ method: 'GET', url: `${SITE}/audit?limit=5` }),
  'GET /api/v1/sites/:name/feeds': () => ({ method: 'GET', url: `${SITE}/feeds` }),
  'POST /api/v1/sites/:name/feeds': () => ({ method: 'POST', url: `${SITE}/feeds`, payload: { url: 'https://letters.example/feed.xml' } }),
  'DELETE /api/v1/sites/:name/feeds/:id': () => ({ method: 'DELETE', url: `${SITE}/feeds/999` }),
  // a test send pushes to a browser (tests/e2e/dashboard-compose.test.ts): here to a device no one has (404)
  'POST /api/v1/sites/:name/test-sends': () => ({
    method: 'POST',
    url: `${SITE}/test-sends`,
    payload: { deviceId: '999', message: { title: 'Test', body: 'Only to me' } },
  }),
};

let harness: ProviderHarness;
let configDir: { path: string; remove: () => Promise<void> };
let app: FastifyInstance;
let ownerKey: string;
let otherOwnerKey: string;
const keys = {} as Record<Role, string>;
const fixture: RouteFixture = {
  subscriberId: '',
  secret: '',
  endpoint: '',
  otherSubscriberId: '',
  campaignId: '',
  orderId: 'order-1',
  victimId: '',
};
let tableRoutes: Map<string, Route>;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function addMember(name: string, role: Role, link = false, site = 'letters', key = ownerKey): Promise<MemberCreatedReply> {
  const reply = await app.inject({
    method: 'POST',
    url: `/api/v1/sites/${site}/members`,
    headers: bearer(key),
    payload: { name, role, ...(link ? { link: true } : {}) },
  });
  expect(reply.statusCode, reply.body).toBe(201);
  return reply.json<MemberCreatedReply>();
}

/** The route's request, sent with `key`. */
async function call(routeKey: string, key: string) {
  const route = tableRoutes.get(routeKey);
  if (route) {
    await route.setup?.();
    const request = requestOf(route, route.valid());
    return app.inject({ ...request, headers: { ...request.headers, ...bearer(key) } });
  }
  const request = MORE[routeKey]!();
  return app.inject({ ...request, headers: { ...request.headers, ...bearer(key) } });
}

beforeAll(async () => {
  const other = testSite({ name: 'other', hash: 'other-roles-hash', origin: 'https://other.example' });
  // the key ring's routes read the site's VAPID key file
  const vapid = generateVapidKeyPair();
  const letters = testSite();
  configDir = await tempDir('pushkit-roles-');
  const config = { ...letters.config, vapidPublicKey: vapid.publicKey };
  // a key rotation writes the new public key into the site's config file
  const file = join(configDir.path, 'letters.json');
  await writeFile(file, JSON.stringify(config));
  const site = { ...letters, file, config };
  harness = await startProviderHarness({ via: 'createApp', service: false, sites: [site, other], rateLimit: false });
  await writeVapidKeyFile(vapidKeyFile(harness.stateDir, 'letters'), vapid);
  app = harness.app;
  ownerKey = harness.ownerKeyOf('letters');
  otherOwnerKey = harness.ownerKeyOf('other');
  for (const role of ROLES) keys[role] = (await addMember(`The ${role}`, role)).key!;
  const subscriber = await insertSubscriber(app);
  ({ id: fixture.subscriberId, secret: fixture.secret } = subscriber);
  fixture.endpoint = subscriber.subscription.endpoint;
  await app.inject({ method: 'POST', url: `${SITE}/segments`, headers: bearer(ownerKey), payload: { sid: 'news' } });
  fixture.campaignId = (
    await createCampaign(harness.db, harness.site, { title: 'Hi', body: 'There', ttl: 60, urgency: 'normal' })
  ).campaignId;
  const table = routeTable({
    fixture,
    ownerKey: () => ownerKey,
    insertSubscriber: async () => (await insertSubscriber(app)).id,
    inject: (request) => app.inject(request),
  });
  tableRoutes = new Map(table.ownerRoutes.map((route) => [route.name, route]));
});
afterAll(async () => {
  await harness?.close();
  await configDir?.remove();
});

describe('every owner route declares a role', () => {
  it('each registered owner route is in the table, with the role the table expects (none left undeclared)', () => {
    const declared = Object.fromEntries(ownerRoutesOf(app).map((route) => [`${route.method} ${route.url}`, route.role ?? 'none']));
    expect(declared).toEqual(EXPECTED);
    for (const key of Object.keys(EXPECTED)) expect(tableRoutes.has(key) || key in MORE, key).toBe(true);
  });
});

const rows = Object.entries(EXPECTED).flatMap(([route, needed]) => ROLES.map((role) => ({ route, needed, role })));

describe.each(rows)('$route as $role', ({ route, needed, role }) => {
  const below = ROLES.indexOf(role) < ROLES.indexOf(needed);
  it(below ? `is refused (403: needs ${needed})` : 'gets through', async () => {
    const reply = await call(route, keys[role]);
    if (below) {
      expect(reply.statusCode, reply.body).toBe(403);
      expect(reply.json()).toMatchObject({ status: 'failure', code: 'E_ROLE' });
      expect(reply.json().message).toContain(`needs the ${needed} role`);
    } else {
      expect([401, 403], `${reply.statusCode} ${reply.body}`).not.toContain(reply.statusCode);
      expect(reply.statusCode, reply.body).toBeLessThan(500);
    }
  });
});

describe('roles on the server', () => {
  it('a HEAD request is checked as its GET route is', async () => {
    const reply = await app.inject({ method: 'HEAD', url: `${SITE}/subscribers`, headers: bearer(keys.viewer) });
    expect(reply.statusCode).toBe(403);
  });

  it('a route that declares no role is refused to an owner (fails closed)', async () => {
    const bare = Fastify();
    bare.setValidatorCompiler(validatorCompiler);
    bare.setSerializerCompiler(serializerCompiler);
    await bare.register(ownerApi, {
      db: harness.db,
      registry: new SiteRegistry(harness.sites),
      pushServices: PushServiceAllowlist.fromEnvironment(),
      clock: systemClock,
      stateDir: harness.stateDir,
      siteRoutes: [
        async (scope) => {
          scope.get('/api/v1/sites/:name/forgotten', async () => ({ status: 'success' }));
        },
      ],
    });
    try {
      const reply = await bare.inject({ method: 'GET', url: `${SITE}/forgotten`, headers: bearer(ownerKey) });
      expect(reply.statusCode).toBe(403);
      expect(reply.body).toContain('declares no role');
      expect(ownerRoutesOf(bare)).toEqual([{ method: 'GET', url: '/api/v1/sites/:name/forgotten', role: undefined, audit: undefined }]);
    } finally {
      await bare.close();
    }
  });

  it('GET me names who is signed in; the sites list opens for any member', async () => {
    const me = await app.inject({ method: 'GET', url: `${SITE}/me`, headers: bearer(keys.viewer) });
    expect(me.json()).toMatchObject({ member: { name: 'The viewer', role: 'viewer' } });
    const sites = await app.inject({ method: 'GET', url: '/api/v1/sites', headers: bearer(keys.viewer) });
    expect(sites.json().sites.map((site: { name: string }) => site.name)).toEqual(['letters']);
  });
});

describe('attacks', () => {
  it('a viewer cannot export a subscriber, list subscriber records or read one', async () => {
    for (const url of [`/subscribers/${fixture.subscriberId}/export`, '/subscribers', `/subscribers/${fixture.subscriberId}`]) {
      const reply = await app.inject({ method: 'GET', url: `${SITE}${url}`, headers: bearer(keys.viewer) });
      expect(reply.statusCode, url).toBe(403);
      expect(reply.body).not.toContain(fixture.subscriberId);
    }
  });

  it('an editor cannot add a member, give one a new key, change a role or rotate the VAPID key', async () => {
    const attempts: InjectOptions[] = [
      { method: 'POST', url: `${SITE}/members`, payload: { name: 'Mallory', role: 'owner' } },
      { method: 'POST', url: `${SITE}/members/owner/key` },
      { method: 'PATCH', url: `${SITE}/members/owner`, payload: { role: 'viewer' } },
      { method: 'POST', url: `${SITE}/vapid-keys/rotate` },
    ];
    const before = await harness.db.query('SELECT id, role, key_hash FROM site_members ORDER BY site_hash, id');
    for (const attempt of attempts) {
      const reply = await app.inject({ ...attempt, headers: bearer(keys.editor) });
      expect(reply.statusCode, String(attempt.url)).toBe(403);
    }
    expect((await harness.db.query('SELECT id, role, key_hash FROM site_members ORDER BY site_hash, id')).rows).toEqual(before.rows);
  });

  it("a removed member's key is refused at once", async () => {
    const { member, key } = await addMember('Leaving', 'editor');
    expect((await app.inject({ method: 'GET', url: `${SITE}/stats`, headers: bearer(key!) })).statusCode).toBe(200);
    const removed = await app.inject({ method: 'DELETE', url: `${SITE}/members/${member.memberId}`, headers: bearer(keys.owner) });
    expect(removed.statusCode).toBe(200);
    const after = await app.inject({ method: 'GET', url: `${SITE}/stats`, headers: bearer(key!) });
    expect(after.statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/api/v1/sites', headers: bearer(key!) })).statusCode).toBe(401);
  });

  it('a sign-in link works once: the second use is refused and the first key keeps working', async () => {
    const { member, key, signInToken } = await addMember('Ana', 'editor', true);
    expect(key).toBeNull();
    expect(member).toMatchObject({ hasKey: false, role: 'editor' });
    const first = await app.inject({ method: 'POST', url: '/api/v1/sign-in', payload: { token: signInToken } });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ site: 'letters', member: { memberId: member.memberId, name: 'Ana', role: 'editor' } });
    const second = await app.inject({ method: 'POST', url: '/api/v1/sign-in', payload: { token: signInToken } });
    expect(second.statusCode).toBe(401);
    expect(second.json().code).toBe('E_SIGN_IN_LINK');
    const me = await app.inject({ method: 'GET', url: `${SITE}/me`, headers: bearer(first.json().key) });
    expect(me.json().member.name).toBe('Ana');
  });

  it("another site's member key opens nothing on this site", async () => {
    const { key } = await addMember('Olav', 'owner', false, 'other', otherOwnerKey);
    for (const foreign of [key!, otherOwnerKey]) {
      const reply = await app.inject({ method: 'GET', url: `${SITE}/stats`, headers: bearer(foreign) });
      expect(reply.statusCode).toBe(401);
      expect(reply.json().code).toBe('E_OWNER_KEY');
    }
  });

  it('the last owner cannot be removed or made an editor', async () => {
    const other = '/api/v1/sites/other/members';
    const members = (await app.inject({ method: 'GET', url: other, headers: bearer(otherOwnerKey) })).json().members as {
      memberId: string;
    }[];
    for (const { memberId } of members.filter((member) => member.memberId !== 'owner')) {
      await app.inject({ method: 'DELETE', url: `${other}/${memberId}`, headers: bearer(otherOwnerKey) });
    }
    const demoted = await app.inject({
      method: 'PATCH',
      url: `${other}/owner`,
      headers: bearer(otherOwnerKey),
      payload: { role: 'editor' },
    });
    expect(demoted.statusCode).toBe(409);
    const removed = await app.inject({ method: 'DELETE', url: `${other}/owner`, headers: bearer(otherOwnerKey) });
    expect(removed.statusCode).toBe(409);
  });
});

describe('the audit log', () => {
  it('records who created and cancelled a campaign and changed a member, newest first, paged', async () => {
    const created = await app.inject({
      method: 'POST',
      url: `${SITE}/campaigns`,
      headers: bearer(keys.editor),
      payload: { title: 'Audited', body: 'Sale', sendAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(created.statusCode, created.body).toBe(201);
    const campaignId = created.json().campaignId as string;
    await app.inject({ method: 'POST', url: `${SITE}/campaigns/${campaignId}/cancel`, headers: bearer(keys.editor) });
    const { member } = await addMember('Viv', 'viewer');
    await app.inject({
      method: 'PATCH',
      url: `${SITE}/members/${member.memberId}`,
      headers: bearer(keys.owner),
      payload: { role: 'editor' },
    });
    const page = (await app.inject({ method: 'GET', url: `${SITE}/audit?limit=4`, headers: bearer(keys.owner) })).json<AuditReply>();
    expect(page.limit).toBe(4);
    expect(page.total).toBeGreaterThan(4);
    expect(page.entries.map(({ memberName, action, target }) => ({ memberName, action, target }))).toEqual([
      { memberName: 'The owner', action: 'member.role', target: `${member.memberId} (Viv) to editor` },
      { memberName: 'Owner', action: 'member.add', target: `${member.memberId} (Viv, viewer)` },
      { memberName: 'The editor', action: 'campaign.cancel', target: `id=${campaignId}` },
      { memberName: 'The editor', action: 'campaign.create', target: campaignId },
    ]);
    expect(Date.now() - Date.parse(page.entries[0]!.at)).toBeLessThan(60_000);
    const next = (
      await app.inject({ method: 'GET', url: `${SITE}/audit?limit=4&offset=4`, headers: bearer(keys.owner) })
    ).json<AuditReply>();
    expect(next.entries[0]!.id).not.toBe(page.entries[3]!.id);
    expect(Number(next.entries[0]!.id)).toBeLessThan(Number(page.entries[3]!.id));
  });

  it('a refused change is not recorded; a subscriber erased is', async () => {
    const before = (await app.inject({ method: 'GET', url: `${SITE}/audit?limit=1`, headers: bearer(keys.owner) })).json<AuditReply>();
    await app.inject({ method: 'POST', url: `${SITE}/campaigns`, headers: bearer(keys.viewer), payload: { title: 'x', body: 'y' } });
    const after = (await app.inject({ method: 'GET', url: `${SITE}/audit?limit=1`, headers: bearer(keys.owner) })).json<AuditReply>();
    expect(after.total).toBe(before.total);
    const victim = (await insertSubscriber(app)).id;
    await app.inject({ method: 'DELETE', url: `${SITE}/subscribers/${victim}`, headers: bearer(keys.owner) });
    const erased = (await app.inject({ method: 'GET', url: `${SITE}/audit?limit=1`, headers: bearer(keys.owner) })).json<AuditReply>();
    expect(erased.entries[0]).toMatchObject({ memberName: 'The owner', action: 'subscriber.erase', target: `id=${victim}` });
  });
});

describe('the owner key of before the team', () => {
  it('becomes the first owner member by the migration, and keeps opening everything', async () => {
    const migration = MIGRATIONS.find((candidate) => candidate.name.startsWith('a team per site'))!;
    // the database as it was before: owner keys only
    await harness.db.query('DROP TABLE site_members');
    await harness.db.query('DROP TABLE audit_log');
    for (const statement of migration.statements) await harness.db.query(statement);
    const members = (await app.inject({ method: 'GET', url: `${SITE}/members`, headers: bearer(ownerKey) })).json().members;
    expect(members).toEqual([expect.objectContaining({ memberId: 'owner', name: 'Owner', role: 'owner', hasKey: true })]);
    const rotated = await app.inject({ method: 'POST', url: `${SITE}/vapid-keys/rotate`, headers: bearer(ownerKey) });
    expect(rotated.statusCode).toBe(200);
  });

  it("the provider file's token acts as an owner, named in the audit log", async () => {
    const token = 't'.repeat(43);
    const withToken = await createApp({
      sites: harness.sites,
      db: harness.db,
      rateLimit: false,
      stateDir: harness.stateDir,
      providerToken: token,
    });
    try {
      const added = await withToken.inject({
        method: 'POST',
        url: `${SITE}/members`,
        headers: bearer(token),
        payload: { name: 'Bea', role: 'viewer' },
      });
      expect(added.statusCode).toBe(201);
      const audit = (await withToken.inject({ method: 'GET', url: `${SITE}/audit?limit=1`, headers: bearer(token) })).json<AuditReply>();
      expect(audit.entries[0]).toMatchObject({ memberId: null, memberName: 'provider token', action: 'member.add' });
    } finally {
      await withToken.close();
    }
  });
});
