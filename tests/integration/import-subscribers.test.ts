// Issue 29: another service's subscribers imported into a site through the owner API (POST sites/:name/imports,
// the route the dashboard and `push-kit import --key` use), each format with good and bad rows; the imported
// subscribers are ordinary ones: listed, in their segments with their tags, and a campaign reaches every one.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport } from '../../contract/imports.ts';
import type { SubscriberListItem } from '../../contract/owner-api.ts';
import { vapidKeyId } from '../../server/keys/index.ts';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.ts';
import { verifyVapidAuthorization } from '../support/fake-push-service.ts';
import { useProviderHarness } from '../support/provider-harness.ts';

const harness = useProviderHarness();
/** Endpoint paths whose subscriptions were made with another key than the site's. */
const signedWith = new Map<string, string>();

let paths = 0;
/** A subscription on the fake push service with the harness's keys (so its pushes can be decrypted). */
function endpoint(prefix: string): string {
  paths += 1;
  return `${harness.service.origin}/${prefix}/${paths}`;
}

function postImport(body: string, query: Record<string, string> = {}, contentType = 'text/csv', key: string | null = harness.ownerKey) {
  return harness.app.inject({
    method: 'POST',
    url: `/api/v1/sites/${harness.site.name}/imports?${new URLSearchParams(query)}`,
    headers: { 'content-type': contentType, ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
    payload: body,
  });
}

async function importFile(body: string, query: Record<string, string> = {}, contentType = 'text/csv'): Promise<ImportReport> {
  const reply = await postImport(body, query, contentType);
  expect(reply.statusCode, reply.body).toBe(200);
  return (reply.json() as { report: ImportReport }).report;
}

async function subscriberCount(): Promise<number> {
  const reply = await harness.owner('GET', '/subscribers/count');
  return (reply.json() as { count: number }).count;
}

async function listed(query: Record<string, string>): Promise<{ total: number; subscribers: SubscriberListItem[] }> {
  const reply = await harness.owner('GET', `/subscribers?${new URLSearchParams(query)}`);
  expect(reply.statusCode, reply.body).toBe(200);
  return reply.json() as { total: number; subscribers: SubscriberListItem[] };
}

const lines = (report: ImportReport) => report.problems.map(({ line, code }) => [line, code]);

describe('push-kit CSV', () => {
  let good: string[] = [];
  beforeAll(() => {
    good = [endpoint('csv'), endpoint('csv'), endpoint('csv')];
  });
  const csv = () => {
    const { keys } = harness;
    return [
      'endpoint,p256dh,auth,created_at,language,timezone,tags,segments,external_id,status',
      `${good[0]},${keys.p256dh},${keys.auth},2024-03-01T10:00:00Z,fr-FR,Europe/Paris,"{""plan"":""gold"",""visits"":3}",imported-vip;news,crm-1,`,
      `https://push.evil.example/x,${keys.p256dh},${keys.auth},,,,,,,`,
      `${good[1]},${keys.p256dh.slice(0, 40)},${keys.auth},,,,,,,`,
      `${good[1]},${keys.p256dh},${keys.auth},,en,,plan=silver;region=north,imported-vip,crm-2,`,
      `${good[2]},${keys.p256dh},,,,,,,,`,
      `${good[2]},${keys.p256dh},${keys.auth},1700000000,,,,,,unsubscribed`,
      `${endpoint('csv')},${keys.p256dh},${keys.auth},,,,,,,gone-away`,
      `${endpoint('csv')},${keys.p256dh},${keys.auth},,,,"{""a"":",,,`,
      `${endpoint('csv')},${keys.p256dh},${keys.auth},,,,,bad segment!,,`,
      `${good[0]},${keys.p256dh},${keys.auth},,,,,,,`,
    ].join('\r\n');
  };

  it('imports the good rows and reports each bad one by its line (the header is line 1)', async () => {
    const before = await subscriberCount();
    const report = await importFile(csv());
    expect(report).toMatchObject({ format: 'csv', dryRun: false, rows: 10, imported: 3, existing: 1, invalid: 6 });
    expect(lines(report)).toEqual([
      [3, 'E_ROW_PUSH_SERVICE'],
      [4, 'E_ROW_KEY'],
      [6, 'E_ROW_MISSING'],
      [8, 'E_ROW_FIELD'],
      [9, 'E_ROW_TAGS'],
      [10, 'E_ROW_SEGMENT_ID'],
    ]);
    expect(report.problems[0]!.reason).toBe('endpoint: https://push.evil.example is not a push service this provider sends to');
    expect(report.problems[2]!.reason).toBe('auth: is required');
    expect(report.segmentsCreated).toEqual(['imported-vip', 'news']);
    expect(await subscriberCount()).toBe(before + 3);

    // ordinary subscribers: in their segments, with their tags, found by their external id
    const vip = await listed({ segment: 'imported-vip' });
    expect(vip.subscribers.map((s) => s.endpoint).sort()).toEqual([good[0], good[1]].sort());
    const first = vip.subscribers.find((s) => s.endpoint === good[0])!;
    expect(first).toMatchObject({
      status: 'subscribed',
      language: 'fr-FR',
      timezone: 'Europe/Paris',
      externalId: 'crm-1',
      browserType: null,
      createdAt: '2024-03-01T10:00:00.000Z',
      tags: { plan: 'gold', visits: '3' },
      segments: ['imported-vip', 'news'],
    });
    expect(first.subscriptionId).toBe(good[0]!.slice(good[0]!.lastIndexOf('/') + 1));
    expect((await listed({ search: 'crm-2' })).subscribers.map((s) => s.tags)).toEqual([{ plan: 'silver', region: 'north' }]);
    expect((await listed({ status: 'unsubscribed', search: good[2]! })).total).toBe(1);
  });

  it('run again, the same file changes nothing: every good row is already there', async () => {
    const before = await subscriberCount();
    const report = await importFile(csv());
    expect(report).toMatchObject({ rows: 10, imported: 0, existing: 4, invalid: 6, segmentsCreated: [] });
    expect(await subscriberCount()).toBe(before);
    expect((await listed({ segment: 'imported-vip' })).total).toBe(2);
  });

  it('a dry run counts and reports what an import would do and writes nothing', async () => {
    const { keys } = harness;
    const before = await subscriberCount();
    const file = [
      'endpoint,p256dh,auth,segments',
      `${endpoint('dry')},${keys.p256dh},${keys.auth},dry-only`,
      `${good[0]},${keys.p256dh},${keys.auth},`,
      'x,y,z,',
    ].join('\n');
    const report = await importFile(file, { dryRun: '1' });
    expect(report).toMatchObject({ dryRun: true, rows: 3, imported: 1, existing: 1, invalid: 1, segmentsCreated: ['dry-only'] });
    expect(lines(report)).toEqual([[4, 'E_ROW_ENDPOINT']]);
    expect(await subscriberCount()).toBe(before);
    const segments = await harness.owner('GET', '/segments');
    expect(JSON.stringify(segments.json())).not.toContain('dry-only');
  });

  it('a file without the required columns, or in no format it knows, is refused whole', async () => {
    const before = await subscriberCount();
    const missing = await postImport(`endpoint,p256dh\n${endpoint('none')},x\n`, { format: 'csv' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'E_IMPORT_FORMAT', message: 'file: the header has no auth column' });
    const unknown = await postImport('name,email\nAda,ada@example.com\n');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().code).toBe('E_IMPORT_FORMAT');
    expect(await subscriberCount()).toBe(before);
  });
});

describe('NDJSON of PushSubscriptionJSON', () => {
  it('imports each subscription line and reports lines that are not one', async () => {
    const { keys } = harness;
    const ok = endpoint('ndjson');
    const file = [
      JSON.stringify({ endpoint: ok, expirationTime: null, keys: { p256dh: keys.p256dh, auth: keys.auth }, tags: { source: 'web-push' } }),
      '',
      '{"endpoint": "not json',
      JSON.stringify({ endpoint: endpoint('ndjson'), keys: { p256dh: keys.p256dh, auth: 'c2hvcnQ' } }),
      JSON.stringify([1, 2]),
      JSON.stringify({ endpoint: `http://${new URL(ok).host}/plain`, keys: { p256dh: keys.p256dh, auth: keys.auth } }),
    ].join('\n');
    const report = await importFile(file, {}, 'application/x-ndjson');
    expect(report).toMatchObject({ format: 'ndjson', rows: 5, imported: 1, invalid: 4 });
    expect(lines(report)).toEqual([
      [3, 'E_ROW_JSON'],
      [4, 'E_ROW_KEY'],
      [5, 'E_ROW_JSON'],
      [6, 'E_ROW_ENDPOINT'],
    ]);
    expect((await listed({ search: ok })).subscribers[0]?.tags).toEqual({ source: 'web-push' });
  });
});

describe("OneSignal's subscriptions export", () => {
  it('reads identifier, web_p256 and web_auth; skips what is not web push; notification_types below 0 is unsubscribed', async () => {
    const { keys } = harness;
    const [chrome, firefox, off] = [endpoint('onesignal'), endpoint('onesignal'), endpoint('onesignal')];
    const file = [
      'id,identifier,session_count,language,timezone,game_version,device_os,device_type,device_model,ad_id,tags,last_active,playtime,amount_spent,created_at,invalid_identifier,badge_count,web_auth,web_p256,external_user_id,notification_types,timezone_id',
      `os-1,${chrome},3,de,7200,,120,5,,,"{""team"":""blue""}",1731000000,0,0,2023-05-01 12:00:00,f,0,${keys.auth},${keys.p256dh},user-42,1,Europe/Berlin`,
      `os-2,someone@example.com,1,en,0,,,11,,,{},1731000000,0,0,2023-05-01 12:00:00,f,0,,,,1,`,
      `os-3,${firefox},1,en,0,,,8,,,{},1731000000,0,0,2023-06-01 12:00:00,f,0,${keys.auth},${keys.p256dh},,1,`,
      `os-4,${off},1,en,0,,,5,,,{},1731000000,0,0,2023-06-01 12:00:00,f,0,${keys.auth},${keys.p256dh},,-2,`,
      `os-5,${endpoint('onesignal')},1,en,0,,,5,,,{},1731000000,0,0,2023-06-01 12:00:00,f,0,,,,1,`,
    ].join('\n');
    const report = await importFile(file, { format: 'auto' });
    expect(report).toMatchObject({ format: 'onesignal', rows: 5, imported: 3, invalid: 2 });
    expect(lines(report)).toEqual([
      [3, 'E_ROW_NOT_WEB_PUSH'],
      [6, 'E_ROW_MISSING'],
    ]);
    expect((await listed({ search: 'user-42' })).subscribers[0]).toMatchObject({
      endpoint: chrome,
      language: 'de',
      timezone: 'Europe/Berlin',
      tags: { team: 'blue' },
      createdAt: '2023-05-01T12:00:00.000Z',
    });
    expect((await listed({ search: off })).subscribers[0]?.status).toBe('unsubscribed');
  });

  it('an export without the keys names the extra fields to ask for', async () => {
    const reply = await postImport(`id,identifier,device_type\nos-1,${endpoint('onesignal')},5\n`);
    expect(reply.statusCode).toBe(400);
    expect(reply.json().message).toBe(
      'file: the header has no web_p256, web_auth columns (export with extra_fields ["web_auth", "web_p256"])',
    );
  });
});

describe('the owner key', () => {
  it('a wrong or missing key is refused before the file is read, and nothing is imported', async () => {
    const before = await subscriberCount();
    const file = `endpoint,p256dh,auth\n${endpoint('key')},${harness.keys.p256dh},${harness.keys.auth}\n`;
    const wrong = await postImport(file, {}, 'text/csv', 'not-the-owner-key');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().code).toBe('E_OWNER_KEY');
    const none = await postImport(file, {}, 'text/csv', null);
    expect(none.statusCode).toBe(401);
    expect(await subscriberCount()).toBe(before);
  });
});

describe("the previous service's VAPID key", () => {
  const previous = generateVapidKeyPair();
  let legacy: string[] = [];
  beforeAll(() => {
    legacy = [endpoint('legacy'), endpoint('legacy')];
  });

  it('joins the key ring through the owner API; an import names it, and a key not on the ring is refused', async () => {
    const { keys } = harness;
    const added = await harness.owner('POST', '/imports/vapid-key', previous);
    expect(added.statusCode, added.body).toBe(200);
    const { keyId } = added.json() as { keyId: string; current: boolean };
    expect(added.json()).toEqual({ status: 'success', keyId: vapidKeyId(previous.publicKey), current: false });

    const broken = await harness.owner('POST', '/imports/vapid-key', { ...previous, privateKey: generateVapidKeyPair().privateKey });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().code).toBe('E_VAPID_KEY_INVALID');
    const unknown = await postImport(`endpoint,p256dh,auth\n${legacy[0]},${keys.p256dh},${keys.auth}\n`, { vapidKeyId: 'abcdef123456' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().code).toBe('E_IMPORT_PARAM');

    // one new subscription of the old service, and one imported before without its key (it was forgotten)
    const forgotten = await importFile(`endpoint,p256dh,auth\n${legacy[1]},${keys.p256dh},${keys.auth}\n`);
    expect(forgotten).toMatchObject({ imported: 1, vapidKeyId: null });
    const file = `endpoint,p256dh,auth\n${legacy[0]},${keys.p256dh},${keys.auth}\n${legacy[1]},${keys.p256dh},${keys.auth}\n`;
    const dry = await importFile(file, { vapidKeyId: keyId, dryRun: '1' });
    expect(dry).toMatchObject({ imported: 1, existing: 1, rekeyed: 1, vapidKeyId: keyId });
    const report = await importFile(file, { vapidKeyId: keyId });
    expect(report).toMatchObject({ imported: 1, existing: 1, rekeyed: 1, vapidKeyId: keyId });
    expect(await importFile(file, { vapidKeyId: keyId })).toMatchObject({ imported: 0, existing: 2, rekeyed: 0 });
    signedWith.set(new URL(legacy[0]!).pathname, previous.publicKey);
    signedWith.set(new URL(legacy[1]!).pathname, previous.publicKey);
  });
});

describe('a campaign to the imported subscribers', () => {
  it('reaches every imported subscriber once, each message signed with the key of its subscription, readable with its keys', async () => {
    const subscribed = await listed({ status: 'subscribed', limit: '1000' });
    const targets = subscribed.subscribers.map((s) => new URL(s.endpoint!).pathname);
    // two of the CSV, one of the NDJSON, two of the OneSignal export, two of the old service's key
    expect(targets.length).toBe(7);
    const created = await harness.owner('POST', '/campaigns', { title: 'We moved', body: 'Same news, new sender' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().recipients).toBe(targets.length);
    await expect.poll(() => targets.filter((path) => harness.received(path) === 1).length, { timeout: 20_000 }).toBe(targets.length);
    for (const path of targets) {
      const [push] = harness.deliveries(path);
      expect(harness.messageOf(push!).notification.title).toBe('We moved');
      const key = signedWith.get(path) ?? harness.vapid.publicKey;
      expect(() => verifyVapidAuthorization(push!.headers.authorization as string, key), path).not.toThrow();
    }
  });
});
