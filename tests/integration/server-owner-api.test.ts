// The owner API: key checks, subscriber paging and search, counts, segments, privacy export and deletion,
// campaigns and their deliveries.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.ts';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import type { Database } from '../../server/db/database.ts';
import { ensureOwnerKey, rotateOwnerKey } from '../../server/http/owner-keys.ts';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { insertSubscriber, postSync, SITE_HASH, testSite } from '../support/server.ts';

let harness: ProviderHarness;
let db: Database;
let app: FastifyInstance;
let key: string;
let otherKey: string;
const site = testSite();
const other = testSite({ name: 'other', hash: 'other-site-hash', origin: 'https://other.example' });
const subscribers: string[] = [];
/** Each subscriber's secret, as its browser holds it. */
const secrets: Record<string, string> = {};
const asList = (...ids: string[]) => ids.map((id) => `subscriber_list[]=${id}&subscriberSecret[]=${secrets[id]}`).join('&');

beforeAll(async () => {
  harness = await startProviderHarness({ via: 'createApp', service: false, sites: [site, other] });
  ({ app, db } = harness);
  key = harness.ownerKeyOf(site.name);
  otherKey = harness.ownerKeyOf(other.name);
  for (let index = 0; index < 7; index += 1) {
    const { id, secret } = await insertSubscriber(app, { userLanguage: index < 2 ? 'pt-BR' : 'en-US' });
    subscribers.push(id);
    secrets[id] = secret;
  }
  await postSync(app, {
    hash: SITE_HASH,
    action: 'unsubscribe-ui',
    subscriberId: subscribers[6]!,
    subscriberSecret: secrets[subscribers[6]!]!,
  });
});
afterAll(async () => {
  await harness?.close();
});

const owner = (method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, payload?: object, bearer: string | null = key) =>
  app.inject({
    method,
    url: `/api/v1/sites/letters${url}`,
    headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
    payload,
  });

describe('owner keys', () => {
  it('are created once: a second ensureOwnerKey returns nothing and the first key keeps working', async () => {
    expect(key).toMatch(/^pk_[A-Za-z0-9_-]{32}$/);
    expect(await ensureOwnerKey(db, site)).toBeNull();
    expect((await owner('GET', '/subscribers/count')).statusCode).toBe(200);
    const { rows } = await db.query<{ key_hash: string }>('SELECT key_hash FROM owner_keys WHERE site_hash = $1', [SITE_HASH]);
    expect(rows[0]!.key_hash).not.toContain(key);
  });

  it('refuses a missing, malformed, wrong or other-site key with 401', async () => {
    const missing = await owner('GET', '/subscribers', undefined, null);
    expect(missing.statusCode).toBe(401);
    expect(missing.json().code).toBe('E_OWNER_KEY_MISSING');
    expect((await owner('GET', '/subscribers', undefined, 'pk_wrong')).json().code).toBe('E_OWNER_KEY');
    expect((await owner('GET', '/subscribers', undefined, otherKey)).json()).toEqual({
      status: 'failure',
      message: 'authorization: wrong owner key for site letters',
      code: 'E_OWNER_KEY',
    });
    const basic = await app.inject({ url: '/api/v1/sites/letters/subscribers', headers: { authorization: `Basic ${key}` } });
    expect(basic.statusCode).toBe(401);
  });

  it('answers a site name that is not hosted exactly as a hosted site with a wrong key (no site enumeration)', async () => {
    const ask = (name: string, authorization?: string) =>
      app.inject({ url: `/api/v1/sites/${name}/subscribers`, headers: authorization ? { authorization } : {} });
    // another site's key, a key of no site, no key
    for (const authorization of [`Bearer ${otherKey}`, 'Bearer pk_wrong', undefined]) {
      const unknown = await ask('nope', authorization);
      const known = await ask('letters', authorization);
      expect(unknown.statusCode).toBe(known.statusCode);
      expect(unknown.json().code).toBe(known.json().code);
      expect(Object.keys(unknown.json()).sort()).toEqual(Object.keys(known.json()).sort());
      expect(unknown.json().message.replace('nope', 'letters')).toBe(known.json().message);
    }
  });

  it('lists the sites a key opens, with nothing of a site its own pages do not show', async () => {
    const reply = await app.inject({ url: '/api/v1/sites', headers: { authorization: `Bearer ${key}` } });
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.json()).toEqual({
      status: 'success',
      sites: [{ name: 'letters', hash: SITE_HASH, companyName: 'Letters', origin: 'https://letters.example', iconUrl: null }],
    });
    const none = await app.inject({ url: '/api/v1/sites', headers: { authorization: 'Bearer pk_nobody' } });
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe('E_OWNER_KEY_NO_SITE');
  });

  it('a rotated key replaces the old one', async () => {
    const third = testSite({ name: 'third', hash: 'third-site-hash' });
    const first = (await ensureOwnerKey(db, third))!;
    const second = await rotateOwnerKey(db, third);
    const thirdApp = await createApp({ sites: [third], db });
    const call = (bearer: string) =>
      thirdApp.inject({ url: '/api/v1/sites/third/segments', headers: { authorization: `Bearer ${bearer}` } });
    expect((await call(first)).statusCode).toBe(401);
    expect((await call(second)).statusCode).toBe(200);
    await thirdApp.close();
  });
});

describe('subscribers', () => {
  it('pages with limit and offset in subscription order, with the total', async () => {
    const page1 = (await owner('GET', '/subscribers?limit=3&offset=0')).json();
    const page2 = (await owner('GET', '/subscribers?limit=3&offset=3')).json();
    const page3 = (await owner('GET', '/subscribers?limit=3&offset=6')).json();
    expect(page1).toMatchObject({ status: 'success', total: 7, limit: 3, offset: 0 });
    const ids = [...page1.subscribers, ...page2.subscribers, ...page3.subscribers].map((subscriber: { id: string }) => subscriber.id);
    expect(ids).toEqual(subscribers);
    expect(page1.subscribers[0]).not.toHaveProperty('auth');
  });

  it('filters by status and searches', async () => {
    const unsubscribed = (await owner('GET', '/subscribers?status=unsubscribed')).json();
    expect(unsubscribed.subscribers.map((subscriber: { id: string }) => subscriber.id)).toEqual([subscribers[6]]);
    const portuguese = (await owner('GET', '/subscribers?search=pt-BR')).json();
    expect(portuguese.total).toBe(2);
    const wildcard = (await owner('GET', `/subscribers?search=${encodeURIComponent('%')}`)).json();
    expect(wildcard.total).toBe(0);
    // case-blind, one page of the matches with the number of all of them, even past the last one
    const caseBlind = (await owner('GET', '/subscribers?search=PT-br&limit=1')).json();
    expect(caseBlind).toMatchObject({ total: 2, subscribers: [{ id: subscribers[0], language: 'pt-BR' }] });
    const pastTheEnd = (await owner('GET', '/subscribers?search=pt-BR&offset=5')).json();
    expect(pastTheEnd).toMatchObject({ total: 2, subscribers: [] });
    const byId = (await owner('GET', `/subscribers?search=${subscribers[3]!.slice(2, 12).toUpperCase()}`)).json();
    expect(byId.subscribers.map((subscriber: { id: string }) => subscriber.id)).toContain(subscribers[3]);
  });

  it('searches tags (key=value) and time zones, sorts by last seen, and exports the list as spreadsheet-safe CSV', async () => {
    await db.query(`UPDATE subscribers SET timezone = 'Asia/Tokyo' WHERE id = $1`, [subscribers[1]]);
    await db.query(`UPDATE subscribers SET last_sync_at = now() + interval '1 hour' WHERE id = $1`, [subscribers[4]]);
    // a visitor's own tag text
    await db.query(`INSERT INTO subscriber_tags (subscriber_id, key, value) VALUES ($1, 'plan', 'pro'), ($2, 'note', '=HYPERLINK("x")')`, [
      subscribers[2],
      subscribers[3],
    ]);
    const ids = async (query: string) =>
      ((await owner('GET', `/subscribers?${query}`)).json().subscribers as { id: string }[]).map((subscriber) => subscriber.id);
    expect(await ids('search=PLAN%3Dpro')).toEqual([subscribers[2]]);
    expect(await ids('search=asia%2Ftokyo')).toEqual([subscribers[1]]);
    expect((await ids('order=lastSeen'))[0]).toBe(subscribers[4]);

    const csv = await owner('GET', '/subscribers.csv?search=HYPERLINK');
    expect([csv.statusCode, csv.headers['content-type']]).toEqual([200, 'text/csv; charset=utf-8']);
    const lines = csv.body.split('\r\n');
    expect(lines[0]).toBe('id,status,browser,language,time zone,subscribed at,last seen,segments,tags');
    // the tags cell starts with the tag's key, never the visitor's text; quotes doubled inside a quoted cell
    expect(lines[1]).toMatch(new RegExp(`^${subscribers[3]},subscribed,.*,"note==HYPERLINK\\(""x""\\)"$`));
    expect(lines.slice(2)).toEqual(['']);
  });

  it('refuses bad paging and filters with 400 naming the parameter', async () => {
    expect((await owner('GET', '/subscribers?limit=5000')).json().message).toMatch(/^limit: /);
    expect((await owner('GET', '/subscribers?offset=-1')).json().message).toMatch(/^offset: /);
    expect((await owner('GET', '/subscribers?status=gone')).json().message).toBe(
      'status: must be one of subscribed, unsubscribed, blocked, expired',
    );
  });

  it('counts by status', async () => {
    expect((await owner('GET', '/subscribers/count')).json()).toEqual({
      status: 'success',
      count: 7,
      byStatus: { subscribed: 6, unsubscribed: 1, blocked: 0, expired: 0 },
    });
  });
});

describe('segments', () => {
  it('creates, lists with member counts, refuses a duplicate, and deletes', async () => {
    const created = await owner('POST', '/segments', { sid: 'vip', name: 'Very important' });
    expect(created.statusCode).toBe(201);
    expect((await owner('POST', '/segments', { sid: 'vip' })).json().code).toBe('E_SEGMENT_EXISTS');
    expect((await owner('POST', '/segments', { sid: 'bad sid!' })).json().message).toMatch(/^sid: /);
    await app.inject({
      url: `/as?id=vip&customer_hash=${SITE_HASH}&${asList(subscribers[0]!, subscribers[1]!)}`,
    });
    const listed = (await owner('GET', '/segments')).json();
    expect(listed.segments).toEqual([
      {
        sid: 'vip',
        name: 'Very important',
        members: 2,
        reachable: 2,
        condition: null,
        configCondition: null,
        createdAt: expect.any(String),
      },
    ]);
    expect((await owner('DELETE', '/segments/vip')).json()).toEqual({ status: 'success', deleted: 'vip' });
    expect((await owner('DELETE', '/segments/vip')).statusCode).toBe(404);
    expect((await owner('GET', '/segments')).json().segments).toEqual([]);
  });
});

describe('privacy requests', () => {
  it('exports everything stored about a subscriber, then deletes it all', async () => {
    const { id, secret, subscription } = await insertSubscriber(app, { uuid: 'privacy-uuid' });
    await app.inject({
      url: `/tags?hash=${SITE_HASH}&subscriberId=${id}&subscriberSecret=${secret}&tags=${encodeURIComponent('{"plan":"pro"}')}`,
    });
    await app.inject({ url: `/c.gif?hash=${SITE_HASH}&subscriberId=${id}&subscriberSecret=${secret}&segment=readers&action=add-segment` });
    const exported = (await owner('GET', `/subscribers/${id}`)).json();
    expect(exported).toMatchObject({
      status: 'success',
      subscriber: { id, uuid: 'privacy-uuid', endpoint: subscription.endpoint, subscription: JSON.parse(subscription.json) },
      tags: { plan: 'pro' },
      segments: ['readers'],
    });
    expect(exported.events.map((event: { kind: string }) => event.kind)).toEqual(['subscribed', 'segment-add']);
    expect((await owner('DELETE', `/subscribers/${id}`)).json()).toEqual({ status: 'success', deleted: id });
    expect((await owner('GET', `/subscribers/${id}`)).statusCode).toBe(404);
    for (const table of ['subscriber_tags', 'segment_memberships', 'events']) {
      const { rows } = await db.query(`SELECT 1 FROM ${table} WHERE subscriber_id = $1`, [id]);
      expect(rows, table).toHaveLength(0);
    }
  });
});

describe('campaigns', () => {
  it('creates pending deliveries for all subscribed, a segment, or one subscriber, and reports counts', async () => {
    const all = await owner('POST', '/campaigns', { title: 'New submissions', body: 'Come and see', url: 'https://letters.example/new' });
    expect(all.statusCode).toBe(201);
    expect(all.json()).toEqual({ status: 'success', campaignId: expect.stringMatching(/^\d+$/), recipients: 6 });
    await app.inject({ url: `/as?id=readers&customer_hash=${SITE_HASH}&${asList(subscribers[2]!)}` });
    expect((await createCampaign(db, site, { title: 'T', body: 'B', segment: 'readers', ttl: 60, urgency: 'high' })).recipients).toBe(1);
    const one = await owner('POST', '/campaigns', { title: 'Hi', body: 'Just you', subscriberId: subscribers[3] });
    expect(one.json().recipients).toBe(1);
    const unsubscribedOnly = await createCampaign(db, site, {
      title: 'T',
      body: 'B',
      subscriberId: subscribers[6]!,
      ttl: 60,
      urgency: 'low',
    });
    expect(unsubscribedOnly.recipients).toBe(0);

    const campaignId = all.json().campaignId;
    await db.query(`UPDATE deliveries SET status = 'delivered' WHERE campaign_id = $1 AND subscriber_id = ANY($2::text[])`, [
      campaignId,
      subscribers.slice(0, 3),
    ]);
    await db.query(`UPDATE deliveries SET status = 'expired' WHERE campaign_id = $1 AND subscriber_id = $2`, [campaignId, subscribers[3]]);
    await db.query(`UPDATE deliveries SET status = 'failed' WHERE campaign_id = $1 AND subscriber_id = $2`, [campaignId, subscribers[4]]);
    const detail = (await owner('GET', `/campaigns/${campaignId}`)).json();
    expect(detail.campaign).toMatchObject({
      campaignId,
      title: 'New submissions',
      url: 'https://letters.example/new',
      ttl: 86400,
      urgency: 'normal',
      recipients: 6,
      sent: 5,
      pending: 1,
      delivered: 3,
      failed: 1,
      expired: 1,
      clicked: 0,
    });
    const listed = (await owner('GET', '/campaigns?limit=2')).json();
    expect(listed.campaigns).toHaveLength(2);
    expect((await owner('GET', '/campaigns/999999')).statusCode).toBe(404);
  });

  it('"reaches N" is the number of recipients a campaign to the same audience gets', async () => {
    await app.inject({
      url: `/as?id=reach&customer_hash=${SITE_HASH}&${asList(subscribers[1]!, subscribers[6]!)}`,
    });
    const audiences: Record<string, string>[] = [
      {},
      { segment: 'reach' },
      { subscriberId: subscribers[5]! },
      { subscriberId: subscribers[6]! },
    ];
    const reached: number[] = [];
    for (const audience of audiences) {
      const reaches = (await owner('GET', `/audience?${new URLSearchParams(audience)}`)).json().recipients;
      const created = (await owner('POST', '/campaigns', { title: 'Reach', body: 'Counted twice', ...audience })).json();
      expect(created.recipients, JSON.stringify(audience)).toBe(reaches);
      reached.push(reaches);
    }
    // everyone subscribed; the segment without its unsubscribed member; one subscriber; an unsubscribed one
    expect(reached).toEqual([6, 1, 1, 0]);
  });

  it('a campaign is re-creatable but a delivery is unique per campaign and subscriber', async () => {
    const { campaignId } = await createCampaign(db, site, {
      title: 'T',
      body: 'B',
      subscriberId: subscribers[0]!,
      ttl: 60,
      urgency: 'normal',
    });
    await expect(
      db.query('INSERT INTO deliveries (campaign_id, subscriber_id) VALUES ($1, $2)', [campaignId, subscribers[0]]),
    ).rejects.toThrow(/unique|duplicate/i);
  });

  it('refuses a bad campaign with 400 naming the field', async () => {
    expect((await owner('POST', '/campaigns', { body: 'no title' })).json()).toMatchObject({
      code: 'E_PARAM_MISSING',
      message: 'title: is required',
    });
    expect((await owner('POST', '/campaigns', { title: 'T', body: 'B', urgency: 'asap' })).json().message).toBe(
      'urgency: must be one of very-low, low, normal, high',
    );
    expect((await owner('POST', '/campaigns', { title: 'T', body: 'B', url: 'javascript:alert(1)' })).json().message).toBe(
      'url: must be an absolute http(s) URL',
    );
    expect((await owner('POST', '/campaigns', { title: 'T', body: 'B', subscriberId: 'nobody' })).statusCode).toBe(404);
    expect((await owner('POST', '/campaigns', { title: 'T', body: 'B', segment: 'never-made' })).json()).toEqual({
      status: 'failure',
      message: 'segment: no segment never-made on site letters',
      code: 'E_SEGMENT_UNKNOWN',
    });
    expect(
      (await owner('POST', '/campaigns', { title: 'T', body: 'B', segment: 'readers', subscriberId: subscribers[0] })).json().message,
    ).toBe('segment: give a segment or a subscriberId, not both');
  });
});
