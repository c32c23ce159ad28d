// Issue 29, the key ring per site: a push subscription is bound to the VAPID key it was made with, so a rotation
// keeps the old key as a legacy key and every push is signed with its own subscription's key. Through the real
// provider and its owner API, against a fake push service that, as a real one, refuses (403) a push whose VAPID
// JWT is not signed by the key its subscription was made with.
import { readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Campaign } from '../../contract/owner-api.ts';
import type { VapidKeyRing, VapidKeyRotation } from '../../contract/vapid-keys.ts';
import { rotateVapidKey } from '../../server/keys/index.ts';
import { generateVapidKeyPair, readVapidKeyFile } from '../../server/push/vapid-keys.ts';
import { legacyVapidKeyDir, vapidKeyFile } from '../../server/state-paths.ts';
import { startFakePushService, type FakePushService } from '../support/fake-push-service.ts';
import { ProviderHarness, type Subscribed } from '../support/provider-harness.ts';
import { tempDir, testSite } from '../support/server.ts';

/** The public key each endpoint path's subscription was made with, as the push service knows it. */
const madeWith = new Map<string, string>();
const original = generateVapidKeyPair();
let service: FakePushService;
let folder: { path: string; remove: () => Promise<void> };
let harness: ProviderHarness;
let configFile: string;

beforeAll(async () => {
  service = await startFakePushService({ subscriptionKey: (path) => madeWith.get(path) });
  folder = await tempDir('pushkit-ring-');
  // A site config file of its own: a rotation rewrites its vapidPublicKey.
  configFile = join(folder.path, 'letters.json');
  const site = testSite();
  await writeConfig({ ...site.config, vapidPublicKey: original.publicKey });
  harness = new ProviderHarness({ vapid: original, service, sites: [{ ...site, file: configFile }] });
  await harness.start();
});
afterAll(async () => {
  await harness.close();
  await service.close();
  await folder.remove();
});

async function writeConfig(config: object): Promise<void> {
  const { writeFile } = await import('node:fs/promises');
  await writeFile(configFile, `${JSON.stringify(config, null, 2)}\n`);
}

/** A browser subscribing with `publicKey` (push.js built with it reports it in the sync call). */
async function subscribeWith(publicKey: string, path: string): Promise<Subscribed> {
  madeWith.set(path, publicKey);
  return harness.subscribe({ path, fields: { vapidPublicKey: publicKey } });
}

/** The sync call's `update` of a subscriber's subscription at `path`, from a page whose push.js has `publicKey`. */
function syncUpdate(subscriber: Subscribed, path: string, publicKey: string) {
  return harness.app.inject({
    method: 'POST',
    url: '/syncSubscriptionAction.php',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      hash: harness.site.hash,
      action: 'update',
      subscriberId: subscriber.id,
      subscriberSecret: subscriber.secret,
      vapidPublicKey: publicKey,
      subscription: JSON.stringify({
        endpoint: `${service.origin}${path}`,
        keys: { p256dh: harness.keys.p256dh, auth: harness.keys.auth },
      }),
    }).toString(),
  });
}

async function ring(): Promise<VapidKeyRing> {
  const reply = await harness.owner('GET', '/vapid-keys');
  expect(reply.statusCode, reply.body).toBe(200);
  return reply.json<VapidKeyRing>();
}

async function sendCampaign(title: string): Promise<Campaign> {
  const created = await harness.owner('POST', '/campaigns', { title, body: 'Fresh ink' });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json<{ campaignId: string }>().campaignId;
  await harness.campaigns.idle();
  return (await harness.owner('GET', `/campaigns/${id}`)).json<{ campaign: Campaign }>().campaign;
}

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe('a rotated key ring', () => {
  let rotation: VapidKeyRotation;
  const oldPaths = ['/ring/old/0', '/ring/old/1', '/ring/old/2'];
  const newPaths = ['/ring/new/0', '/ring/new/1'];
  const olds: Subscribed[] = [];

  it('rotates: a new current key in the config and the key file (0600), the old one kept as a legacy key (0600)', async () => {
    for (const path of oldPaths.slice(0, 2)) olds.push(await subscribeWith(original.publicKey, path));
    const before = await ring();
    expect(before).toMatchObject({ onLegacyKey: 0, missing: [] });
    expect(before.keys).toEqual([expect.objectContaining({ current: true, publicKey: original.publicKey, subscribers: 2, canSign: true })]);

    const reply = await harness.owner('POST', '/vapid-keys/rotate');
    expect(reply.statusCode, reply.body).toBe(200);
    rotation = reply.json<VapidKeyRotation>();
    expect(rotation.previous).toBe(before.keys[0]!.id);
    expect(rotation.current).not.toBe(rotation.previous);

    // the site config names the new key, written whole, the rest of it untouched
    const config = JSON.parse(await readFile(configFile, 'utf8')) as { vapidPublicKey: string; companyName: string };
    expect(config).toMatchObject({ vapidPublicKey: rotation.publicKey, companyName: 'Letters' });
    const keyFile = vapidKeyFile(harness.stateDir, harness.site.name);
    expect((await readVapidKeyFile(keyFile)).publicKey).toBe(rotation.publicKey);
    const legacyFile = join(legacyVapidKeyDir(harness.stateDir, harness.site.name), `${rotation.previous}.json`);
    expect(await readVapidKeyFile(legacyFile)).toEqual(original);
    expect(await mode(keyFile)).toBe(0o600);
    expect(await mode(legacyFile)).toBe(0o600);
    expect(await mode(legacyVapidKeyDir(harness.stateDir, harness.site.name))).toBe(0o700);
  });

  it('lists the ring with the subscribers on each key', async () => {
    // a page still serving the old push.js subscribes with the old key; the rebuilt one with the new key
    olds.push(await subscribeWith(original.publicKey, oldPaths[2]!));
    for (const path of newPaths) await subscribeWith(rotation.publicKey, path);
    const listed = await ring();
    expect(listed.keys).toEqual([
      expect.objectContaining({ id: rotation.current, current: true, subscribers: 2, canSign: true, problem: null }),
      expect.objectContaining({ id: rotation.previous, current: false, publicKey: original.publicKey, subscribers: 3, canSign: true }),
    ]);
    expect(listed).toMatchObject({ onLegacyKey: 3, missing: [] });
  });

  it('signs each push with the key its subscription was made with: every one accepted', async () => {
    const campaign = await sendCampaign('Both keys');
    expect(campaign).toMatchObject({ status: 'done', recipients: 5, delivered: 5, failed: 0 });
    for (const path of [...oldPaths, ...newPaths]) {
      const pushes = harness.deliveries(path);
      expect(pushes, path).toHaveLength(1);
      expect(pushes[0]!.vapidRefused, path).toBeUndefined();
      expect(String(pushes[0]!.headers.authorization)).toContain(`k=${madeWith.get(path)}`);
    }
  });

  it('refuses to retire a legacy key while subscribers use it, naming the count; retires it once none does', async () => {
    const refused = await harness.owner('DELETE', `/vapid-keys/${rotation.previous}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'E_VAPID_KEY_IN_USE' });
    expect(refused.json<{ message: string }>().message).toContain(`3 subscribers of site letters still use key ${rotation.previous}`);
    const current = await harness.owner('DELETE', `/vapid-keys/${rotation.current}`);
    expect(current.statusCode).toBe(409);
    expect(current.json()).toMatchObject({ code: 'E_VAPID_KEY_CURRENT' });

    // a page with the new push.js syncs a subscription still made with the old key (same endpoint), naming the
    // new key: the subscription keeps its key, as a push service does
    expect((await syncUpdate(olds[0]!, oldPaths[0]!, rotation.publicKey)).statusCode).toBe(200);
    expect(await ring()).toMatchObject({ onLegacyKey: 3 });
    // the browsers move to the new key (as push.js's silent move syncs it): a new subscription, the new key
    for (const [index, subscriber] of olds.entries()) {
      const path = `/ring/moved/${index}`;
      madeWith.set(path, rotation.publicKey);
      const moved = await syncUpdate(subscriber, path, rotation.publicKey);
      expect(moved.statusCode, moved.body).toBe(200);
    }
    expect(await ring()).toMatchObject({ onLegacyKey: 0 });

    const retired = await harness.owner('DELETE', `/vapid-keys/${rotation.previous}`);
    expect(retired.statusCode, retired.body).toBe(200);
    expect(retired.json<{ ring: VapidKeyRing }>().ring.keys.map((key) => key.id)).toEqual([rotation.current]);
    await expect(stat(join(legacyVapidKeyDir(harness.stateDir, harness.site.name), `${rotation.previous}.json`))).rejects.toThrow();
    const unknown = await harness.owner('DELETE', `/vapid-keys/${rotation.previous}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'E_VAPID_KEY_UNKNOWN' });
  });
});

describe('a legacy key whose file is missing', () => {
  it('its subscribers wait (waiting_for_key, nothing failed) while the rest is sent; the restored file sends them', async () => {
    const before = await ring();
    const current = before.keys[0]!;
    const rotated = (await harness.owner('POST', '/vapid-keys/rotate')).json<VapidKeyRotation>();
    expect(rotated.previous).toBe(current.id);
    const onOld = await subscribeWith(current.publicKey, '/missing/old');
    const onNew = await subscribeWith(rotated.publicKey, '/missing/new');
    const legacyFile = join(legacyVapidKeyDir(harness.stateDir, harness.site.name), `${rotated.previous}.json`);
    const saved = await readFile(legacyFile, 'utf8');
    await unlink(legacyFile);

    const campaign = await sendCampaign('One key missing');
    expect(campaign).toMatchObject({ status: 'waiting_for_key', failed: 0 });
    expect(campaign.pending).toBeGreaterThan(0);
    expect(harness.received(onNew.path)).toBe(1);
    expect(harness.received(onOld.path)).toBe(0);
    expect((await ring()).missing).toEqual(expect.arrayContaining([expect.objectContaining({ id: rotated.previous })]));

    const { writeFile } = await import('node:fs/promises');
    await writeFile(legacyFile, saved, { mode: 0o600 });
    await harness.campaigns.tick();
    await harness.campaigns.idle();
    const done = (await harness.owner('GET', `/campaigns/${campaign.campaignId}`)).json<{ campaign: Campaign }>().campaign;
    expect(done).toMatchObject({ status: 'done', pending: 0, failed: 0 });
    expect(harness.deliveries(onOld.path)).toHaveLength(1);
    expect(harness.deliveries(onOld.path)[0]!.vapidRefused).toBeUndefined();
  });
});

describe('a rotation stopped half way', () => {
  it('keeps the new private key from before the config names it; the next rotate finishes that rotation', async () => {
    const current = (await ring()).keys[0]!;
    const keyFile = vapidKeyFile(harness.stateDir, harness.site.name);
    const old = await readVapidKeyFile(keyFile);
    // what a crash between the config write and the key file's rename leaves: the config and the pending pair new
    const next = generateVapidKeyPair();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${keyFile}.next`, JSON.stringify(next), { mode: 0o600 });
    await writeConfig({ ...JSON.parse(await readFile(configFile, 'utf8')), vapidPublicKey: next.publicKey });
    const restarted = { ...harness.site, config: { ...harness.site.config, vapidPublicKey: next.publicKey } };

    const finished = await rotateVapidKey(harness.db, harness.stateDir, restarted);
    expect(finished).toMatchObject({ previous: current.id, publicKey: next.publicKey });
    expect(await readVapidKeyFile(keyFile)).toEqual(next);
    await expect(stat(`${keyFile}.next`)).rejects.toThrow(/ENOENT/);
    const legacyFile = join(legacyVapidKeyDir(harness.stateDir, harness.site.name), `${current.id}.json`);
    expect(await readVapidKeyFile(legacyFile)).toEqual(old);
  });
});
