// A campaign's push message is made once and each delivery's click token put in its places
// (server/campaigns/declarative-payload.ts declarativePayloadText): what a subscriber receives must be the very text
// the message made for that delivery alone would be, token included, for every shape of campaign and site.
import { describe, expect, it } from 'vitest';
import {
  declarativePayload,
  declarativePayloadText,
  type LandingOrigins,
  type PayloadCampaign,
} from '../../server/campaigns/declarative-payload.ts';
import { clickTokenMatches } from '../../server/campaigns/click-token.ts';
import { CLICK_PARAM } from '../../contract/push-payload.ts';

const site: LandingOrigins = { origin: 'https://letters.example', notificationClickOrigins: ['https://shop.letters.example'] };
const base: PayloadCampaign = { campaignId: '7', title: 'Sale', body: 'Brushes and ink', url: 'https://letters.example/sale', icon: null };

const campaigns: Array<[string, PayloadCampaign, LandingOrigins]> = [
  ['a plain campaign', base, site],
  ['a URL with a query, a fragment and its own click parameter', { ...base, url: `/sale?a=b%20c&x&${CLICK_PARAM}=old#top` }, site],
  ['a URL with UTM parameters of its own', { ...base, url: 'https://shop.letters.example/p?utm_source=mail' }, site],
  ['a URL on an origin the site did not configure', { ...base, url: 'https://elsewhere.example/' }, site],
  ['no URL, an unparsable one', { ...base, url: 'http://[::1' }, site],
  [
    'actions, with and without their own URL, icon, image, badge and tag',
    {
      ...base,
      icon: '/i.png',
      image: '/big.png',
      appBadge: 3,
      tag: 'cart',
      actions: [
        { action: 'open', title: 'Open', url: '/cart?step=2' },
        { action: 'later', title: 'Later' },
      ],
    },
    site,
  ],
  ['an automated message', { ...base, utmCampaign: 'automation-cart' }, site],
  ['a site without UTM', base, { ...site, utm: false }],
  ['texts with quotes, a backslash and a line separator', { ...base, title: 'Say "hi" \\ \u2028 there', body: '</script>' }, site],
];

describe('a campaign message made once, a token per delivery', () => {
  for (const [name, campaign, where] of campaigns) {
    it(`${name}: the same text as made for the delivery alone`, () => {
      for (const [deliveryId, secretHash] of [
        ['1', 'f'.repeat(64)],
        ['123456789012', 'a1b2'.repeat(16)],
        ['99', null],
        ['1', 'f'.repeat(64)],
      ] as const) {
        const delivery = { deliveryId, secretHash };
        const text = declarativePayloadText(campaign, delivery, where);
        expect(text).toBe(JSON.stringify(declarativePayload(campaign, delivery, where)));
        const message = JSON.parse(text) as { notification: { navigate: string; data: { click?: string } } };
        if (secretHash) {
          expect(clickTokenMatches(message.notification.data.click!, secretHash)).toBe(true);
          expect(new URL(message.notification.navigate).searchParams.get(CLICK_PARAM)).toBe(message.notification.data.click);
        } else {
          expect(message.notification.data.click).toBeUndefined();
        }
      }
    });
  }

  it('two languages of a campaign, two campaigns of one site, or one campaign on two sites, never share a message', () => {
    const delivery = { deliveryId: '5', secretHash: 'b'.repeat(64) };
    for (const title of ['Sale', 'Ausverkauf', 'Soldes']) {
      const language = { ...base, title };
      expect(declarativePayloadText(language, delivery, site)).toBe(JSON.stringify(declarativePayload(language, delivery, site)));
    }
    const other = { ...base, campaignId: '8', title: 'Another' };
    expect(declarativePayloadText(other, delivery, site)).toBe(JSON.stringify(declarativePayload(other, delivery, site)));
    const moved = { ...site, origin: 'https://other.example' };
    expect(declarativePayloadText(base, delivery, moved)).toBe(JSON.stringify(declarativePayload(base, delivery, moved)));
  });
});
