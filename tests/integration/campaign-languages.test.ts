// Texts per language and UTM parameters through the real sender (startProvider, the fake push service that
// decrypts): each subscriber's message is in the best match of their stored language (exact, primary subtag,
// default), for a campaign, an A/B variant and an automation; the campaign's figures split by language; landing
// URLs carry utm_source/utm_medium/utm_campaign unless the URL has its own or the site turns them off.
import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../contract/owner-api.ts';
import type { DeclarativePushMessage } from '../../contract/push-payload.ts';
import type { HostedSite } from '../../server/sites.ts';
import { useProviderHarness } from '../support/provider-harness.ts';
import { SITE_HASH, SITE_ORIGIN, testSite } from '../support/server.ts';

const letters = testSite();
const quietBase = testSite({ name: 'quiet', hash: 'quiet-hash-01' });
/** A site that turns the UTM parameters off. */
const quiet: HostedSite = { ...quietBase, config: { ...quietBase.config, utm: false } };
const harness = useProviderHarness({ sites: [letters, quiet], rateLimit: false });

const TEXTS = {
  de: { title: 'Neue Briefe', body: 'Zwölf neue Stücke' },
  'en-US': { title: 'New letters', body: 'Twelve new pieces' },
};

/** Subscribes one visitor whose browser reports `language`; its path names it. */
async function subscriber(language: string, prefix: string, hash = SITE_HASH) {
  return harness.subscribe({ path: `/${prefix}/${language}`, hash, fields: { userLanguage: language } });
}

function only(path: string): DeclarativePushMessage {
  const messages = harness.messages(path);
  expect(messages).toHaveLength(1);
  return messages[0]!;
}

/** The landing URL's query, without the click token. */
function landing(message: DeclarativePushMessage): string {
  const url = new URL(message.notification.navigate);
  url.searchParams.delete('pushkit_click');
  return url.href;
}

describe('texts per language', () => {
  it("sends each subscriber the best match of their language and splits the campaign's figures by it", async () => {
    const de = await subscriber('de-DE', 'c');
    // a browser may report its tag in any case
    const en = await subscriber('en-us', 'c');
    const fr = await subscriber('fr', 'c');
    const created = await harness.owner('POST', '/campaigns', {
      title: 'Nouvelles lettres',
      body: 'Douze pièces',
      url: `${SITE_ORIGIN}/spring`,
      texts: TEXTS,
    });
    expect(created.statusCode, created.body).toBe(201);
    const { campaignId } = created.json() as { campaignId: string };
    await harness.campaigns.idle();

    // de-DE has no exact match: its primary subtag's; en-us is en-US in another case; fr none: the default
    expect(only(de.path).notification).toMatchObject({ title: 'Neue Briefe', body: 'Zwölf neue Stücke' });
    expect(only(en.path).notification).toMatchObject({ title: 'New letters', body: 'Twelve new pieces' });
    expect(only(fr.path).notification).toMatchObject({ title: 'Nouvelles lettres', body: 'Douze pièces' });
    // the campaign's landing URL carries the UTM parameters, then the click token
    expect(only(de.path).notification.navigate).toMatch(
      new RegExp(`^${SITE_ORIGIN}/spring\\?utm_source=push-kit&utm_medium=push&utm_campaign=${campaignId}&pushkit_click=`),
    );

    // the German subscriber clicks
    const click = await harness.app.inject({
      method: 'POST',
      url: '/notificationEvent',
      headers: { 'content-type': 'text/plain', origin: SITE_ORIGIN },
      payload: JSON.stringify({ hash: SITE_HASH, click: only(de.path).notification.data!.click, event: 'clicked' }),
    });
    expect(click.statusCode).toBe(200);
    const campaign = (await harness.owner('GET', `/campaigns/${campaignId}`)).json().campaign as Campaign;
    expect(campaign.texts).toEqual(TEXTS);
    expect(campaign.byLanguage).toEqual([
      { language: 'default', recipients: 1, delivered: 1, clicked: 0 },
      { language: 'de', recipients: 1, delivered: 1, clicked: 1 },
      { language: 'en-US', recipients: 1, delivered: 1, clicked: 0 },
    ]);
  });

  it("sends an A/B variant's own texts per language", async () => {
    const de = await subscriber('de-AT', 'ab');
    const en = await subscriber('en-GB', 'ab');
    const created = await harness.owner('POST', '/campaigns', {
      title: 'Default',
      body: 'Default body',
      texts: TEXTS,
      variants: [
        { texts: { de: { title: 'Variante A', body: 'A auf Deutsch' } } },
        { texts: { de: { title: 'Variante B', body: 'B auf Deutsch' } } },
      ],
      testFraction: 0.95,
      winnerAfterMinutes: 60,
    });
    expect(created.statusCode, created.body).toBe(201);
    await harness.campaigns.idle();
    // the audience is the site's 5 subscribers, 0.95 of them (all 5) in the test
    const sent = harness.deliveries().filter((push) => push.path === de.path || push.path === en.path);
    expect(sent).toHaveLength(2);
    for (const push of sent) {
      const { title } = harness.messageOf(push).notification;
      // German: its variant's German text; British English: no "en" in the variant's texts, the default
      expect(title).toMatch(push.path === de.path ? /^Variante [AB]$/ : /^Default$/);
    }
    const { campaignId } = created.json() as { campaignId: string };
    const campaign = (await harness.owner('GET', `/campaigns/${campaignId}`)).json().campaign as Campaign;
    expect(campaign.variants.map((variant) => variant.texts)).toEqual([
      { de: { title: 'Variante A', body: 'A auf Deutsch' } },
      { de: { title: 'Variante B', body: 'B auf Deutsch' } },
    ]);
    expect(campaign.byLanguage!.reduce((sum, figure) => sum + figure.recipients, 0)).toBe(campaign.recipients);
  });

  it('refuses a malformed language tag and too many languages, naming the field', async () => {
    const badTag = await harness.owner('POST', '/campaigns', { title: 'T', body: 'B', texts: { German: { title: 'T', body: 'B' } } });
    expect(badTag.statusCode).toBe(400);
    expect(badTag.body).toMatch(/texts.*language tag such as de or fr-CA/);
    const many = Object.fromEntries(
      Array.from({ length: 51 }, (_, i) => [
        `x${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
        { title: 'T', body: 'B' },
      ]),
    );
    const tooMany = await harness.owner('POST', '/campaigns', { title: 'T', body: 'B', texts: many });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.body).toMatch(/at most 50 languages/);
    const empty = await harness.owner('POST', '/campaigns', { title: 'T', body: 'B', texts: { de: { title: '', body: 'B' } } });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toMatch(/texts\.de\.title/);
  });

  it("sends an automation's texts per language, its UTM campaign automation-<kind>", async () => {
    const changed = await harness.owner('PATCH', '/automations/welcome', {
      enabled: true,
      delayMinutes: 0,
      url: `${SITE_ORIGIN}/welcome?utm_source=newsletter`,
      texts: { de: { title: 'Willkommen!', body: 'Danke fürs Abonnieren.' } },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().automation.texts).toEqual({ de: { title: 'Willkommen!', body: 'Danke fürs Abonnieren.' } });
    const de = await subscriber('de-CH', 'w');
    const en = await subscriber('en-US', 'w');
    await harness.automations.runDue();
    await harness.automations.runDue();
    expect(only(de.path).notification.title).toBe('Willkommen!');
    expect(only(en.path).notification.title).toBe('Welcome!');
    // the URL has a UTM parameter of its own: left as it is
    expect(landing(only(de.path))).toBe(`${SITE_ORIGIN}/welcome?utm_source=newsletter`);
    // the URL without one gets automation-welcome
    await harness.owner('PATCH', '/automations/welcome', { url: null });
    const third = await subscriber('fr', 'w');
    await harness.automations.runDue();
    expect(landing(only(third.path))).toBe(`${SITE_ORIGIN}/?utm_source=push-kit&utm_medium=push&utm_campaign=automation-welcome`);
    await harness.owner('PATCH', '/automations/welcome', { enabled: false });
  });
});

describe('UTM parameters', () => {
  it('are left off by a site with "utm": false, and a URL with its own utm_ parameter keeps it alone', async () => {
    const visitor = await subscriber('en', 'q', quiet.hash);
    const created = await harness.owner(
      'POST',
      `/api/v1/sites/quiet/campaigns`,
      { title: 'Quiet', body: 'No tags', url: `${SITE_ORIGIN}/plain` },
      harness.ownerKeyOf('quiet'),
    );
    expect(created.statusCode, created.body).toBe(201);
    await harness.campaigns.idle();
    expect(landing(only(visitor.path))).toBe(`${SITE_ORIGIN}/plain`);

    const own = await subscriber('en', 'own');
    const tagged = await harness.owner('POST', '/campaigns', {
      title: 'Own tags',
      body: 'Kept',
      url: `${SITE_ORIGIN}/sale?UTM_Campaign=spring`,
      subscriberId: own.id,
    });
    expect(tagged.statusCode, tagged.body).toBe(201);
    await harness.campaigns.idle();
    expect(landing(only(own.path))).toBe(`${SITE_ORIGIN}/sale?UTM_Campaign=spring`);
  });
});
