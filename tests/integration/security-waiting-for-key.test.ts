// Issue 27: a site whose VAPID key file holds a well-formed key that cannot sign (a private key that is not the
// public key's, an invalid scalar, a public key off the curve) used to mark every delivery of a campaign failed
// for good. Now the campaign waits (status waiting_for_key), nothing is marked, and once the key file is fixed
// the campaign goes out at the scheduler's next look or the provider's next start. Through the real provider,
// its queue and sender, against the fake push service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Campaign } from '../../contract/owner-api.ts';
import { generateVapidKeyPair, writeVapidKeyFile, type VapidKeyPair } from '../../server/push/vapid-keys.ts';
import { vapidKeyFile } from '../../server/state-paths.ts';
import { ProviderHarness } from '../support/provider-harness.ts';

const harness = new ProviderHarness({ rateLimit: false });
beforeAll(async () => {
  await harness.start();
});
afterAll(async () => {
  await harness.close();
});

const keyFile = () => vapidKeyFile(harness.stateDir, harness.site.name);

function offCurve(keys: VapidKeyPair): VapidKeyPair {
  const point = Buffer.from(keys.publicKey, 'base64url');
  point[64]! ^= 1;
  return { publicKey: point.toString('base64url'), privateKey: keys.privateKey };
}

const BAD_KEYS: Array<[string, () => VapidKeyPair]> = [
  ["another pair's private key", () => ({ publicKey: harness.vapid.publicKey, privateKey: generateVapidKeyPair().privateKey })],
  ['a zero private key', () => ({ publicKey: harness.vapid.publicKey, privateKey: Buffer.alloc(32).toString('base64url') })],
  ['a public key off the curve', () => offCurve(harness.vapid)],
];

async function campaign(id: string): Promise<Campaign> {
  const reply = await harness.owner('GET', `/campaigns/${id}`);
  expect(reply.statusCode).toBe(200);
  return reply.json<{ campaign: Campaign }>().campaign;
}

async function sendWithKey(keys: VapidKeyPair, title: string): Promise<{ id: string; paths: string[] }> {
  await writeVapidKeyFile(keyFile(), keys);
  const paths = [];
  for (let index = 0; index < 3; index += 1) {
    const path = `/${title.replace(/\W+/g, '-')}/${index}`;
    await harness.subscribe({ path });
    paths.push(path);
  }
  const created = await harness.owner('POST', '/campaigns', { title, body: 'Fresh ink' });
  expect(created.statusCode).toBe(201);
  const id = created.json<{ campaignId: string }>().campaignId;
  await harness.campaigns.idle();
  return { id, paths };
}

describe('a campaign whose site key cannot sign waits for the key', () => {
  it.each(BAD_KEYS)('with %s: waiting_for_key, nothing failed or sent; the fixed key sends it at the next look', async (_name, bad) => {
    const { id, paths } = await sendWithKey(bad(), `bad key ${_name}`);
    const waiting = await campaign(id);
    expect(waiting).toMatchObject({ status: 'waiting_for_key', failed: 0, delivered: 0, expired: 0 });
    expect(waiting.pending).toBeGreaterThanOrEqual(paths.length);
    for (const path of paths) expect(harness.received(path)).toBe(0);

    // the scheduler looks again while the key is still bad: it still waits
    await harness.campaigns.tick();
    await harness.campaigns.idle();
    expect((await campaign(id)).status).toBe('waiting_for_key');

    await writeVapidKeyFile(keyFile(), harness.vapid);
    await harness.campaigns.tick();
    await harness.campaigns.idle();
    expect(await campaign(id)).toMatchObject({ status: 'done', pending: 0, failed: 0 });
    for (const path of paths) expect(harness.received(path)).toBe(1);
  });

  it("a waiting campaign goes out on the provider's next start once the key is fixed", async () => {
    const { id, paths } = await sendWithKey(BAD_KEYS[0]![1](), 'bad key then restart');
    expect((await campaign(id)).status).toBe('waiting_for_key');
    await harness.stop();
    await writeVapidKeyFile(keyFile(), harness.vapid);
    await harness.start();
    await harness.campaigns.idle();
    expect(await campaign(id)).toMatchObject({ status: 'done', pending: 0, failed: 0 });
    for (const path of paths) expect(harness.received(path)).toBe(1);
  });
});

describe('an automated message whose site key cannot sign', () => {
  it('waits too: nothing is marked failed or sent, and the fixed key file sends it at the next pass', async () => {
    expect((await harness.owner('PATCH', '/automations/welcome', { enabled: true, delayMinutes: 0 })).statusCode).toBe(200);
    await writeVapidKeyFile(keyFile(), BAD_KEYS[0]![1]());
    const { path } = await harness.subscribe({ path: '/welcome-bad-key/0' });
    await harness.automations.runDue();
    await harness.automations.runDue();
    expect(harness.received(path)).toBe(0);
    const welcome = async () =>
      (await harness.owner('GET', '/automations/welcome')).json<{ automation: { stats: { scheduled: number; sent: number } } }>().automation
        .stats;
    expect(await welcome()).toMatchObject({ scheduled: 1, sent: 0 });

    await writeVapidKeyFile(keyFile(), harness.vapid);
    await harness.automations.runDue();
    expect(harness.received(path)).toBe(1);
    expect(await welcome()).toMatchObject({ scheduled: 0, sent: 1 });
    await harness.owner('PATCH', '/automations/welcome', { enabled: false });
  });
});
