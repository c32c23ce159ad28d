// The compose screen's draft logic (dashboard/src/compose/): the blank draft, the request it becomes, and the
// problems shown under each field, the form's own wording first and the owner API's input schema over it.
import { describe, expect, it } from 'vitest';
import { campaignRequestOf } from '../../dashboard/src/compose/campaignRequest.ts';
import { blankDraft, describeAudience, type Draft } from '../../dashboard/src/compose/draft.ts';
import { draftProblems, fieldOfIssuePath, formProblems, schemaProblems, urlProblem } from '../../dashboard/src/compose/draftProblems.ts';
import { variantLetter } from '../../dashboard/src/variantLetter.ts';
import { draftFromCampaign, draftFromContent } from '../../dashboard/src/compose/draftContent.ts';
import { lengthHint, PLATFORMS, truncate } from '../../dashboard/src/platforms.ts';
import type { Campaign } from '../../contract/owner-api.ts';

const site = { origin: 'https://letters.example', iconUrl: 'https://letters.example/icon.png' };
const draft = (change: Partial<Draft> = {}): Draft => ({
  ...blankDraft(site),
  title: 'Spring letters',
  body: 'Twelve new pieces.',
  ...change,
});

describe('blankDraft', () => {
  it('opens the site with its icon, to everyone, now, with the default TTL and urgency', () => {
    expect(blankDraft(site)).toMatchObject({
      url: 'https://letters.example',
      icon: 'https://letters.example/icon.png',
      audience: 'all',
      when: 'now',
      ttl: 86_400,
      urgency: 'normal',
      localTime: '09:00',
      abTest: false,
      testPercent: '20',
      winnerAfter: '60',
    });
    expect(blankDraft({ origin: 'https://x.example', iconUrl: null }).icon).toBe('');
  });

  it('starts an A/B test with two empty variants, not shared between drafts', () => {
    const first = blankDraft(site);
    expect(first.variants).toEqual([
      { title: '', body: '', url: '', icon: '', image: '' },
      { title: '', body: '', url: '', icon: '', image: '' },
    ]);
    expect(blankDraft(site).variants[0]).not.toBe(first.variants[0]);
  });
});

describe('describeAudience', () => {
  it('names everyone, the segment or the subscriber (trimmed)', () => {
    expect(describeAudience(draft())).toBe('all subscribers');
    expect(describeAudience(draft({ audience: 'segment', segment: 'vip' }))).toBe('the segment vip');
    expect(describeAudience(draft({ audience: 'subscriber', subscriberId: ' sub-0042 ' }))).toBe('subscriber sub-0042');
  });
});

describe('variantLetter', () => {
  it('reads variant 0 as A', () => {
    expect([0, 1, 2, 3].map(variantLetter)).toEqual(['A', 'B', 'C', 'D']);
  });
});

describe('campaignRequestOf', () => {
  it('trims the texts and leaves out empty optional fields', () => {
    expect(campaignRequestOf(draft({ title: '  Hi  ', body: ' there ', url: ' ', icon: '', image: ' https://x.example/a.png ' }))).toEqual({
      title: 'Hi',
      body: 'there',
      url: undefined,
      icon: undefined,
      image: 'https://x.example/a.png',
      actions: undefined,
      segment: undefined,
      subscriberId: undefined,
      ttl: 86_400,
      urgency: 'normal',
      sendAt: undefined,
      localTime: undefined,
    });
  });

  it('names the buttons button1, button2, ... in order', () => {
    const request = campaignRequestOf(
      draft({
        buttons: [
          { title: ' Read ', url: '' },
          { title: 'Shop', url: 'https://x.example/shop' },
        ],
      }),
    );
    expect(request.actions).toEqual([
      { action: 'button1', title: 'Read', url: undefined },
      { action: 'button2', title: 'Shop', url: 'https://x.example/shop' },
    ]);
  });

  it('sends only the chosen audience', () => {
    const chosen = { segment: 'vip', subscriberId: ' sub-1 ' };
    expect(campaignRequestOf(draft({ ...chosen, audience: 'all' }))).toMatchObject({ segment: undefined, subscriberId: undefined });
    expect(campaignRequestOf(draft({ ...chosen, audience: 'segment' }))).toMatchObject({ segment: 'vip', subscriberId: undefined });
    expect(campaignRequestOf(draft({ ...chosen, audience: 'subscriber' }))).toMatchObject({ segment: undefined, subscriberId: 'sub-1' });
  });

  it('sends only the chosen time: a moment read on the owner clock, or a time of day', () => {
    const times = { sendAt: '2099-01-01T09:00', localTime: '08:30' };
    expect(campaignRequestOf(draft({ ...times, when: 'now' }))).toMatchObject({ sendAt: undefined, localTime: undefined });
    expect(campaignRequestOf(draft({ ...times, when: 'at' }))).toMatchObject({
      sendAt: new Date('2099-01-01T09:00').toISOString(),
      localTime: undefined,
    });
    expect(campaignRequestOf(draft({ ...times, when: 'local' }))).toMatchObject({ sendAt: undefined, localTime: '08:30' });
    expect(campaignRequestOf(draft({ when: 'at', sendAt: '' })).sendAt).toBeUndefined();
  });

  it("sends best-hour delivery when chosen, and the send rate as typed (empty: the site's)", () => {
    expect(campaignRequestOf(draft({ when: 'best-hour' }))).toMatchObject({
      deliverAt: 'best-hour',
      sendAt: undefined,
      localTime: undefined,
    });
    expect(campaignRequestOf(draft({ when: 'now' })).deliverAt).toBeUndefined();
    expect(campaignRequestOf(draft({ throttle: '' })).throttlePerMinute).toBeUndefined();
    expect(campaignRequestOf(draft({ throttle: '600' })).throttlePerMinute).toBe(600);
    expect(schemaProblems(draft({ title: 'T', body: 'B', throttle: '0' })).throttle).toBe('must be 1 or more');
  });

  it('adds an A/B test only when one is on: each variant with the fields it fills, the percent as a fraction', () => {
    const variants = [
      { title: ' B title ', body: '', url: '', icon: '', image: '' },
      { title: '', body: '', url: '', icon: 'https://x.example/i.png', image: '' },
    ];
    expect(campaignRequestOf(draft({ variants })).variants).toBeUndefined();
    expect(campaignRequestOf(draft({ abTest: true, variants, testPercent: '30', winnerAfter: '90' }))).toMatchObject({
      variants: [{ title: 'B title' }, { icon: 'https://x.example/i.png' }],
      testFraction: 0.3,
      winnerAfterMinutes: 90,
    });
  });

  it('turns an empty percent or delay into NaN, for the schema to report', () => {
    const request = campaignRequestOf(draft({ abTest: true, testPercent: ' ', winnerAfter: '' }));
    expect(request.testFraction).toBeNaN();
    expect(request.winnerAfterMinutes).toBeNaN();
  });
});

describe('urlProblem', () => {
  it('accepts nothing or an absolute http(s) URL', () => {
    expect(urlProblem('')).toBeNull();
    expect(urlProblem('https://x.example/a')).toBeNull();
    expect(urlProblem('http://x.example')).toBeNull();
    expect(urlProblem('ftp://x.example')).toBe('must start with http:// or https://');
    expect(urlProblem('/relative')).toBe('must be an absolute URL, such as https://example.com/page');
  });
});

describe('formProblems', () => {
  it('finds nothing wrong with a title and a message', () => {
    expect(formProblems(draft())).toEqual({});
    expect(draftProblems(draft())).toEqual({});
  });

  it('requires a title and a message, within their lengths', () => {
    expect(formProblems(draft({ title: ' ', body: '' }))).toEqual({ title: 'a title is required', body: 'a message is required' });
    expect(formProblems(draft({ title: 'x'.repeat(201), body: 'x'.repeat(1001) }))).toEqual({
      title: 'at most 200 characters',
      body: 'at most 1000 characters',
    });
  });

  it('puts a button problem under its label or its URL', () => {
    expect(
      formProblems(
        draft({
          buttons: [
            { title: '', url: 'nope' },
            { title: 'x'.repeat(41), url: '' },
          ],
        }),
      ),
    ).toEqual({
      button0: 'a button needs a label',
      button0url: 'must be an absolute URL, such as https://example.com/page',
      button1: 'at most 40 characters',
    });
  });

  it('asks for the chosen audience and time', () => {
    expect(formProblems(draft({ audience: 'segment' }))).toEqual({ segment: 'choose a segment' });
    expect(formProblems(draft({ audience: 'subscriber', subscriberId: 'not an id' }))).toEqual({ subscriberId: 'enter a subscriber id' });
    expect(formProblems(draft({ when: 'at', sendAt: '' }))).toEqual({ sendAt: 'choose a date and time' });
    expect(formProblems(draft({ when: 'local', localTime: '24:00' }))).toEqual({ localTime: 'choose a time of day' });
  });
});

describe('draftProblems', () => {
  it("lets the input schema's word win where both check a field", () => {
    expect(draftProblems(draft({ url: 'ftp://x.example' })).url).toBe('must be an absolute http(s) URL');
    expect(draftProblems(draft({ buttons: [{ title: '', url: '' }] })).button0).toBe('must not be empty');
  });

  it("puts the A/B test's schema problems under the variant field, the percent and the delay", () => {
    const variants = [
      { title: '', body: '', url: '', icon: 'nope', image: '' },
      { title: '', body: '', url: '', icon: '', image: '' },
    ];
    expect(draftProblems(draft({ abTest: true, variants, testPercent: '99', winnerAfter: '2' }))).toEqual({
      'variant0-icon': 'must be an absolute http(s) URL',
      testPercent: 'must be 95 % or less',
      winnerAfter: 'must be 5 or more',
    });
    expect(draftProblems(draft({ abTest: true, when: 'local' })).variants).toBe('an A/B test cannot go at a local time');
  });
});

describe('fieldOfIssuePath', () => {
  it.each([
    [['title'], 'title'],
    [['variants'], 'variants'],
    [['variants', 1, 'url'], 'variant1-url'],
    [['actions', 0, 'title'], 'button0'],
    [['actions', 1, 'url'], 'button1url'],
    [['testFraction'], 'testPercent'],
    [['winnerAfterMinutes'], 'winnerAfter'],
    [[], 'form'],
  ])('%j is about %s', (path, field) => {
    expect(fieldOfIssuePath(path)).toBe(field);
  });
});

describe('draftFromContent', () => {
  it('reads back a saved form field by field, keeping the blank value of what does not fit', () => {
    const saved = { ...draft({ audience: 'segment', segment: 'vip', languages: [{ tag: 'de', title: 'Hallo', body: 'Welt' }] }) };
    expect(draftFromContent(JSON.parse(JSON.stringify(saved)) as Record<string, unknown>, site)).toEqual(saved);
    const odd = draftFromContent(
      { title: 42, body: 'Kept', audience: 'everyone', urgency: 'now!', languages: [{ tag: 'de' }], previewLanguage: 3 },
      site,
    );
    expect(odd).toEqual({ ...blankDraft(site), body: 'Kept' });
  });
});

describe('draftFromCampaign', () => {
  it('copies the message, buttons, languages, audience and variants; the copy goes now', () => {
    const campaign = {
      title: 'Spring',
      body: 'Twelve',
      url: null,
      icon: null,
      image: 'https://letters.example/a.png',
      actions: [{ action: 'read', title: 'Read' }],
      texts: { de: { title: 'Frühling', body: 'Zwölf' } },
      variants: [
        { variant: 0, title: null, body: null, texts: null, url: null, icon: null, image: null },
        { variant: 1, title: 'B', body: null, texts: null, url: null, icon: null, image: null },
      ],
      winnerAfterMinutes: 30,
      segment: 'vip',
      subscriberId: null,
      ttl: 600,
      urgency: 'high',
      sendAt: '2020-01-01T00:00:00.000Z',
      localTime: null,
    } as unknown as Campaign;
    expect(draftFromCampaign(campaign, site)).toMatchObject({
      title: 'Spring',
      url: 'https://letters.example',
      icon: '',
      image: 'https://letters.example/a.png',
      buttons: [{ title: 'Read', url: '' }],
      languages: [{ tag: 'de', title: 'Frühling', body: 'Zwölf' }],
      audience: 'segment',
      segment: 'vip',
      when: 'now',
      ttl: 600,
      urgency: 'high',
      abTest: true,
      variants: [{ title: '' }, { title: 'B' }],
      winnerAfter: '30',
    });
  });
});

describe('platform truncation (the preview)', () => {
  it('cuts by code points with an ellipsis, and names each platform that cuts', () => {
    expect(truncate('a'.repeat(40), 40)).toBe('a'.repeat(40));
    expect(truncate('a'.repeat(41), 40)).toBe(`${'a'.repeat(39)}…`);
    expect(truncate('😀'.repeat(3), 2)).toBe('😀…');
    expect(lengthHint('Title', 'a'.repeat(45), (platform) => platform.title.chars)).toBe(
      'Title: 45 characters, cut after 40 on Chrome on macOS, 30 on Chrome on Android.',
    );
    expect(lengthHint('Message', 'short', (platform) => platform.body.chars)).toBeNull();
    expect(PLATFORMS.map((platform) => platform.label)).toEqual([
      'Chrome on Windows',
      'Chrome on macOS',
      'Chrome on Android',
      'Firefox on Windows',
    ]);
  });
});
