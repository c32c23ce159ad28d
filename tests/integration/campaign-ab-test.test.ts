// An A/B test on the real provider, with a clock the test moves: the variants go to the test share split
// evenly, clicks are recorded through the delivery's click token, and at the chosen time the variant with
// the best click rate goes to the rest; the owner sees each variant's figures.
import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../contract/owner-api.ts';
import { manualClock } from '../support/manual-clock.ts';
import { useProviderHarness } from '../support/provider-harness.ts';
import { SITE_HASH, SITE_ORIGIN } from '../support/server.ts';

/** The provider's clock, moved by the test. */
const clock = manualClock('2031-03-02T10:00:00Z');
const harness = useProviderHarness({ clock, rateLimit: false });

const api = (method: 'GET' | 'POST', url: string, payload?: object) => harness.owner(method, url, payload);
const messages = () => harness.messages();

describe('an A/B test', () => {
  it('sends the variants to the test share, then the best click rate to the rest at the chosen time', async () => {
    for (let i = 0; i < 6; i += 1) await harness.subscribe({ path: `/ab/${i}` });
    const created = await api('POST', '/campaigns', {
      title: 'Spring letters',
      body: 'Twelve new pieces',
      url: `${SITE_ORIGIN}/spring`,
      variants: [{}, { title: 'Twelve new letters for spring', url: `${SITE_ORIGIN}/spring?b` }],
      testFraction: 0.67,
      winnerAfterMinutes: 60,
    });
    expect(created.statusCode).toBe(201);
    const { campaignId } = created.json() as { campaignId: string };
    await harness.campaigns.idle();

    const test = messages();
    expect(test.map((message) => message.notification.title).sort()).toEqual([
      'Spring letters',
      'Spring letters',
      'Twelve new letters for spring',
      'Twelve new letters for spring',
    ]);
    // one subscriber of variant B clicks (through the landing URL's token), nobody of A
    const clickedB = test.find((message) => message.notification.title.startsWith('Twelve'))!;
    expect(clickedB.notification.navigate).toMatch(
      new RegExp(`^https://letters\\.example/spring\\?b=&utm_source=push-kit&utm_medium=push&utm_campaign=${campaignId}&pushkit_click=`),
    );
    const click = await harness.app.inject({
      method: 'POST',
      url: '/notificationEvent',
      headers: { 'content-type': 'text/plain', origin: SITE_ORIGIN },
      payload: JSON.stringify({ hash: SITE_HASH, click: clickedB.notification.data!.click, event: 'clicked' }),
    });
    expect(click.statusCode).toBe(200);

    const before = (await api('GET', `/campaigns/${campaignId}`)).json().campaign as Campaign;
    expect(before).toMatchObject({ recipients: 6, delivered: 4, pending: 2, winnerVariant: null, winnerAt: '2031-03-02T11:00:00.000Z' });
    expect(
      before.variants.map(({ variant, recipients, delivered, clicked, clickRate }) => ({
        variant,
        recipients,
        delivered,
        clicked,
        clickRate,
      })),
    ).toEqual([
      { variant: 0, recipients: 2, delivered: 2, clicked: 0, clickRate: 0 },
      { variant: 1, recipients: 2, delivered: 2, clicked: 1, clickRate: 0.5 },
    ]);

    clock.set('2031-03-02T10:59:00Z');
    await harness.campaigns.tick();
    await harness.campaigns.idle();
    expect(harness.deliveries()).toHaveLength(4);

    clock.set('2031-03-02T11:00:00Z');
    await harness.campaigns.tick();
    await harness.campaigns.idle();
    const rest = messages().slice(4);
    expect(rest.map((message) => message.notification.title)).toEqual(['Twelve new letters for spring', 'Twelve new letters for spring']);
    const after = (await api('GET', `/campaigns/${campaignId}`)).json().campaign as Campaign;
    expect(after).toMatchObject({ status: 'done', delivered: 6, pending: 0, winnerVariant: 1 });
    // the variants' figures stay those of the test, in the list of campaigns too
    expect(after.variants.map((variant) => variant.delivered)).toEqual([2, 2]);
    const listed = (await api('GET', '/campaigns')).json().campaigns as Campaign[];
    expect(listed.find((entry) => entry.campaignId === campaignId)!.variants.map((variant) => variant.clicked)).toEqual([0, 1]);
  });

  it('starts the winner clock when the test share has gone, and says when there is no winner', async () => {
    // due at 11:00, winner 30 minutes after; the provider looks again only at 11:45 (it was down): the test
    // share has not gone, so no winner may be picked yet
    clock.set('2031-03-03T10:00:00Z');
    for (let i = 0; i < 6; i += 1) await harness.subscribe({ path: `/ink/${i}` });
    const pushedBefore = harness.deliveries().length;
    const created = await api('POST', '/campaigns', {
      title: 'Ink samples',
      body: 'Six inks',
      variants: [{}, { title: 'Six new inks' }],
      testFraction: 0.34,
      winnerAfterMinutes: 30,
      sendAt: '2031-03-03T11:00:00Z',
    });
    expect(created.statusCode, created.body).toBe(201);
    const { campaignId, recipients } = created.json() as { campaignId: string; recipients: number };
    const testSize = Math.round(recipients * 0.34);
    const figures = async () => (await api('GET', `/campaigns/${campaignId}`)).json().campaign as Campaign;
    expect(await figures()).toMatchObject({ winnerVariant: null, testDeliveredAt: null, winnerAfterMinutes: 30 });

    clock.set('2031-03-03T11:45:00Z');
    await harness.campaigns.tick();
    await harness.campaigns.idle();
    const test = messages().slice(pushedBefore);
    expect(test).toHaveLength(testSize);
    expect(new Set(test.map((message) => message.notification.title))).toEqual(new Set(['Ink samples', 'Six new inks']));
    expect(await figures()).toMatchObject({
      winnerVariant: null,
      testDeliveredAt: '2031-03-03T11:45:00.000Z',
      winnerAt: '2031-03-03T12:15:00.000Z',
    });

    clock.set('2031-03-03T12:15:00Z');
    await harness.campaigns.tick();
    await harness.campaigns.idle();
    // nobody clicked: no winner, and the first variant went to the rest
    const rest = messages().slice(pushedBefore + testSize);
    expect(rest.map((message) => message.notification.title)).toEqual(Array(recipients - testSize).fill('Ink samples'));
    expect(await figures()).toMatchObject({ status: 'done', winnerVariant: 0, winnerNote: 'too-few-clicks' });
  });

  it('refuses an A/B test it cannot run, naming the field', async () => {
    const refused = async (body: object) => (await api('POST', '/campaigns', { title: 'T', body: 'B', ...body })).json().message as string;
    expect(await refused({ variants: [{ title: 'A' }] })).toBe('variants: an A/B test needs 2 to 4 variants');
    expect(await refused({ variants: [{}, {}, {}, {}, {}], testFraction: 0.5, winnerAfterMinutes: 60 })).toBe(
      'variants: an A/B test needs 2 to 4 variants',
    );
    expect(await refused({ variants: [{}, {}] })).toBe('variants: an A/B test needs testFraction and winnerAfterMinutes');
    expect(await refused({ variants: [{}, {}], testFraction: 1.5, winnerAfterMinutes: 60 })).toBe('testFraction: must be 0.95 or less');
    expect(await refused({ variants: [{}, {}], testFraction: 0.2, winnerAfterMinutes: 1 })).toBe('winnerAfterMinutes: must be 5 or more');
    expect(await refused({ variants: [{ title: '' }, {}], testFraction: 0.2, winnerAfterMinutes: 60 })).toBe(
      'variants.0.title: must not be empty',
    );
  });
});
