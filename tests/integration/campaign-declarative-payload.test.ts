// Every campaign goes out as a declarative push message (contract/push-payload.ts), decrypted here at the
// fake push service as a browser would; its landing URLs carry the delivery's click token, which the
// provider counts for that delivery's subscriber and campaign only, once.
import { describe, expect, it } from 'vitest';
import { createCampaign, getCampaign } from '../../server/campaigns/campaign-store.ts';
import { sendCampaign } from '../../server/campaigns/campaign-sender.ts';
import type { CampaignInput } from '../../contract/campaign-input.ts';
import type { DeclarativePushMessage } from '../../contract/push-payload.ts';
import { useProviderHarness } from '../support/provider-harness.ts';
import { SITE_HASH, SITE_ORIGIN, testSite } from '../support/server.ts';

const SHOP_ORIGIN = 'https://shop.letters.example';
const OTHER_HASH = 'other-site-hash';
const plain = testSite();
const harness = useProviderHarness({
  via: 'createApp',
  sites: [
    { ...plain, config: { ...plain.config, notificationClickOrigins: [SHOP_ORIGIN] } },
    testSite({ name: 'other', hash: OTHER_HASH, origin: 'https://other.example' }),
  ],
  rateLimit: false,
  pathPrefix: 'declarative',
});

/** A subscriber stored by the real sync call, on its own fake push service path. */
const subscribe = () => harness.subscribe();

/** Sends a campaign to everyone subscribed now and returns each subscriber's decrypted message. */
async function send(input: Omit<CampaignInput, 'ttl' | 'urgency'>): Promise<{ campaignId: string; messages: DeclarativePushMessage[] }> {
  const { campaignId } = await createCampaign(harness.db, harness.site, { ttl: 3600, urgency: 'normal', ...input });
  const before = harness.deliveries().length;
  await sendCampaign(harness.db, harness.site, campaignId, harness.vapid, {
    ca: harness.service.ca,
    pushServices: harness.service.pushServices,
  });
  const messages = harness.messages().slice(before);
  return { campaignId, messages };
}

const tokenOf = (url: string) => new URL(url).searchParams.get('pushkit_click')!;

const report = (body: Record<string, unknown>, origin = SITE_ORIGIN) =>
  harness.app.inject({
    method: 'POST',
    url: '/notificationEvent',
    headers: { 'content-type': 'text/plain;charset=UTF-8', origin },
    payload: JSON.stringify(body),
  });

const clicked = async (campaignId: string) => (await getCampaign(harness.db, SITE_HASH, campaignId))!.clicked;

describe('a campaign as a declarative push message', () => {
  it('carries the declarative fields, the landing URL with a per-delivery click token, buttons and the app badge', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    await subscribe();
    await subscribe();
    const { campaignId, messages } = await send({
      title: 'New submissions',
      body: 'Three new pieces',
      url: `${SITE_ORIGIN}/new?from=push`,
      icon: `${SITE_ORIGIN}/icon.png`,
      image: `${SITE_ORIGIN}/wide.jpg`,
      actions: [
        { action: 'shop', title: 'Shop', url: `${SHOP_ORIGIN}/cart` },
        { action: 'read', title: 'Read' },
      ],
      appBadge: 3,
    });
    expect(messages).toHaveLength(2);
    const tokens = messages.map((message) => tokenOf(message.notification.navigate));
    expect(new Set(tokens).size).toBe(2);
    const deliveries = await harness.db.query<{ id: string; subscriber_id: string }>(
      'SELECT id, subscriber_id FROM deliveries WHERE campaign_id = $1',
      [campaignId],
    );
    expect(tokens.map((token) => token.split('.')[0]).sort()).toEqual(deliveries.rows.map((row) => String(row.id)).sort());
    // every landing URL carries the UTM parameters naming push-kit and the campaign, before the click token
    const utm = `utm_source=push-kit&utm_medium=push&utm_campaign=${campaignId}`;
    for (const [index, message] of messages.entries()) {
      const token = tokens[index]!;
      expect(message).toEqual({
        web_push: 8030,
        notification: {
          title: 'New submissions',
          navigate: `${SITE_ORIGIN}/new?from=push&${utm}&pushkit_click=${token}`,
          body: 'Three new pieces',
          icon: `${SITE_ORIGIN}/icon.png`,
          image: `${SITE_ORIGIN}/wide.jpg`,
          tag: `pushkit-campaign-${campaignId}`,
          actions: [
            { action: 'shop', title: 'Shop', navigate: `${SHOP_ORIGIN}/cart?${utm}&pushkit_click=${token}` },
            { action: 'read', title: 'Read', navigate: `${SITE_ORIGIN}/new?from=push&${utm}&pushkit_click=${token}` },
          ],
          data: { campaignId, click: token },
        },
        app_badge: 3,
        mutable: true,
      });
    }
  });

  it('lands on the home page for a URL on an origin the site did not configure, and sets no badge unless asked', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    await subscribe();
    const { campaignId, messages } = await send({ title: 'Prize', body: 'Claim it', url: 'https://evil.example/prize' });
    const [message] = messages;
    expect(message!.notification.navigate).toBe(
      `${SITE_ORIGIN}/?utm_source=push-kit&utm_medium=push&utm_campaign=${campaignId}&pushkit_click=${tokenOf(message!.notification.navigate)}`,
    );
    expect(message).not.toHaveProperty('app_badge');
    expect(message!.notification).not.toHaveProperty('actions');
  });
});

describe('the click token on the landing URL', () => {
  it('counts a click for the delivery subscriber once, however often it is reported', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    await subscribe();
    const { campaignId, messages } = await send({ title: 'Once', body: 'one click', url: `${SITE_ORIGIN}/once` });
    const token = tokenOf(messages[0]!.notification.navigate);
    for (let i = 0; i < 3; i += 1)
      expect((await report({ hash: SITE_HASH, click: token, event: 'clicked' })).json()).toEqual({ status: 'success' });
    // the worker's own report of the same click, with the token from the notification's data
    expect((await report({ hash: SITE_HASH, campaignId, click: token, event: 'clicked' })).statusCode).toBe(200);
    expect(await clicked(campaignId)).toBe(1);
    const rows = await harness.db.query('SELECT 1 FROM events WHERE campaign_id = $1 AND kind = $2', [campaignId, 'clicked']);
    expect(rows.rows).toHaveLength(1);
  });

  it('refuses a forged, edited, moved or other-site token and counts nothing', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    await subscribe();
    await subscribe();
    const victim = await send({ title: 'Victim', body: 'someone else’s', url: `${SITE_ORIGIN}/victim` });
    const mine = await send({ title: 'Mine', body: 'my own', url: `${SITE_ORIGIN}/mine` });
    const [myToken, neighbourToken] = mine.messages.map((message) => tokenOf(message.notification.navigate)) as [string, string];
    const [myDelivery, myMac] = myToken.split('.') as [string, string];
    const victimDeliveries = victim.messages.map((message) => tokenOf(message.notification.navigate).split('.')[0]!);
    const attempts: Record<string, unknown>[] = [
      // my MAC on the victim campaign's deliveries
      ...victimDeliveries.map((delivery) => ({ hash: SITE_HASH, click: `${delivery}.${myMac}`, event: 'clicked' })),
      // a MAC made up, on my own delivery and on a delivery that does not exist
      { hash: SITE_HASH, click: `${myDelivery}.${'A'.repeat(22)}`, event: 'clicked' },
      { hash: SITE_HASH, click: `999999999.${myMac}`, event: 'clicked' },
      // my real token, said to be of the victim campaign
      { hash: SITE_HASH, campaignId: victim.campaignId, click: myToken, event: 'clicked' },
    ];
    for (const body of attempts) {
      const reply = await report(body);
      expect(reply.statusCode, JSON.stringify(body)).toBe(403);
      expect(reply.json()).toMatchObject({ code: 'E_CLICK_TOKEN_WRONG', message: 'click: not the click token of a delivery of this site' });
    }
    // a real token sent for another site
    const otherSite = await report({ hash: OTHER_HASH, click: neighbourToken, event: 'clicked' }, 'https://other.example');
    expect(otherSite.statusCode).toBe(403);
    const malformed = await report({ hash: SITE_HASH, click: 'not-a-token', event: 'clicked' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().message).toMatch(/^click: must be the click token of a delivery/);
    const none = await report({ hash: SITE_HASH, event: 'clicked' });
    expect(none.json()).toMatchObject({ code: 'E_CAMPAIGN_ID_MISSING' });
    expect(await clicked(victim.campaignId)).toBe(0);
    expect(await clicked(mine.campaignId)).toBe(0);
  });
});

describe('the app badge as the owner API takes it', () => {
  it('stores a whole number and refuses a negative one naming appBadge', async () => {
    const post = (appBadge: unknown) => harness.owner('POST', '/campaigns', { title: 'Badge', body: 'count', appBadge });
    const bad = await post(-1);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('appBadge: must be 0 or more');
    const fractional = await post(1.5);
    expect(fractional.json().message).toBe('appBadge: must be a whole number');
  });
});
