import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { parseConfigText } from '../../config/load-config.ts';
import { siteConfigSchema } from '../../config/schema.ts';
import { DEFAULT_TEXTS } from '../../config/default-texts.ts';
import { siteConfigJsonSchema } from '../../config/write-json-schema.ts';

const VAPID = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';
const minimal = {
  hash: 'site-hash-01',
  companyName: 'Acme',
  origin: 'https://acme.example',
  serverSyncUrl: 'https://push.acme.example',
  vapidPublicKey: VAPID,
};

function problems(config: unknown): string[] {
  const loaded = parseConfigText('site.json', JSON.stringify(config));
  return loaded.ok ? [] : loaded.problems.map((problem) => `${problem.path}: ${problem.message}`);
}

/** `path code` of each problem: for problems whose message is the catalogue's, not a rule of the schema. */
function problemCodes(config: unknown): string[] {
  const loaded = parseConfigText('site.json', JSON.stringify(config));
  return loaded.ok ? [] : loaded.problems.map((problem) => `${problem.path} ${problem.code}`);
}

describe('site config defaults (spec sections 2, 3, 4)', () => {
  const config = siteConfigSchema.parse(minimal);

  it('includes every URL and excludes none', () => {
    expect(config.includeUrls).toEqual(['*']);
    expect(config.excludeUrls).toEqual([]);
  });

  it('auto-triggers the prompt 5 s after load', () => {
    expect(config.triggers).toEqual({ when: 'delay', delaySeconds: 5, persist: 'page' });
  });

  it('uses the texts of section 2, word for word', () => {
    expect(config.texts.contextBox).toBe(
      "Please Click on 'Allow' in the permission box to get instant notifications from our website. No Email Required.",
    );
    expect(config.texts.alreadySubscribed).toBe(
      'You are already subscribed to get instant alerts from us. Keep an eye on your browser for new notifications from us.',
    );
    expect(
      config.texts.blocked.startsWith(
        'Uh-oh! You seem to have blocked the notifications last time you came on our website. To see how to subscribe',
      ),
    ).toBe(true);
    expect(config.texts.offer).toMatch(/notify you when it gets new Calligraphy submissions\.$/);
    expect(config.texts.yesButton).toBe('Yes');
    expect(config.texts.noButton).toBe('No');
  });

  it('defaults every section-3 field the runtime reads', () => {
    expect(config).toMatchObject({
      manifestUrl: '/manifest.json',
      swPath: '/sw.js',
      firefoxSwPath: '/sw-firefox.js',
      segmentations: [],
      clickSegmentations: [],
      shopifySegmentations: [],
      isShopifyConnectedAccount: false,
      pcBranding: 0,
      isNativeOptin: 1,
      isInactive: false,
      pageClickTrackingConcent: false,
      style: {
        brandingType: 'default',
        isMobileEnabled: false,
        allowTextChildWindow: 'Allow',
        offerTextChildWindow: DEFAULT_TEXTS.offer,
      },
    });
    expect(config.servicesServerURL).toBeUndefined();
    expect(config.safariWebsitePushId).toBeUndefined();
  });

  it('normalises the origin and keeps a segment version of 1 by default', () => {
    const parsed = siteConfigSchema.parse({
      ...minimal,
      origin: 'https://acme.example/',
      segmentations: [{ sid: 3, ss: 'visitCount > 2' }],
    });
    expect(parsed.origin).toBe('https://acme.example');
    expect(parsed.segmentations[0]).toEqual({ sid: 3, ss: 'visitCount > 2', vn: 1 });
  });
});

describe('click and shop segmentations (spec section 5)', () => {
  it('accept arrays', () => {
    const parsed = siteConfigSchema.parse({ ...minimal, clickSegmentations: [{ sid: 'buyers', selector: '.buy' }] });
    expect(parsed.clickSegmentations).toEqual([{ sid: 'buyers', selector: '.buy', vn: 1 }]);
  });

  it('accept JSON strings', () => {
    const parsed = siteConfigSchema.parse({
      ...minimal,
      shopifySegmentations: JSON.stringify([{ sid: 9, event: 'order' }]),
    });
    expect(parsed.shopifySegmentations).toEqual([{ sid: 9, event: 'order', vn: 1 }]);
  });

  it('read invalid JSON as an empty list, with a warning naming the field', () => {
    const loaded = parseConfigText('site.json', JSON.stringify({ ...minimal, clickSegmentations: '[{"sid":' }));
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.config.clickSegmentations).toEqual([]);
    expect(loaded.warnings).toMatchObject([{ code: 'W_SEGMENTATIONS_JSON', path: 'clickSegmentations' }]);
  });
});

describe('validation errors name the field', () => {
  it('unknown fields, at any depth', () => {
    expect(problemCodes({ ...minimal, colour: 'red', style: { shadow: true } }).sort()).toEqual([
      'colour E_CONFIG_UNKNOWN_FIELD',
      'style.shadow E_CONFIG_UNKNOWN_FIELD',
    ]);
  });

  it('missing required fields', () => {
    expect(problemCodes({ ...minimal, companyName: undefined })).toEqual(['companyName E_CONFIG_MISSING_FIELD']);
    expect(problems({ ...minimal, companyName: undefined })).toEqual(['companyName: required field is missing (expected string)']);
  });

  it('wrong types', () => {
    expect(
      problems({ ...minimal, pcBranding: 2, isInactive: 'no', clickSegmentations: [{ sid: 'bad name!', selector: 'a' }] }).sort(),
    ).toEqual([
      'clickSegmentations.0.sid: must be a positive integer, or 1 to 29 letters, digits, "_" or "-"',
      'isInactive: Invalid input: expected boolean, received string',
      'pcBranding: must be 0 or 1',
    ]);
  });

  it('bad URLs', () => {
    expect(problems({ ...minimal, serverSyncUrl: 'ftp://push.example', style: { iconUrl: 'icon.png' } })).toEqual([
      'serverSyncUrl: must be an absolute http(s) URL',
      'style.iconUrl: must be an absolute http(s) URL',
    ]);
  });

  it('an origin that is not a URL', () => {
    expect(problems({ ...minimal, origin: 'not a url' })).toEqual(['origin: must be an absolute http(s) URL']);
  });

  it('an origin with a path', () => {
    expect(problems({ ...minimal, origin: 'https://acme.example/shop' })).toEqual([
      'origin: must be an origin only (scheme, host and port), with no path, query or fragment',
    ]);
  });

  it('a child window origin with a path', () => {
    expect(problems({ ...minimal, childWindowOrigin: 'https://push.acme.example/site' })).toEqual([
      'childWindowOrigin: must be an origin only (scheme, host and port), with no path, query or fragment',
    ]);
  });

  it.each([
    ['not base64', 'not a key!'],
    ['too short', VAPID.slice(0, 40)],
    ['not on the curve', `BA${'A'.repeat(85)}`],
  ])('a vapid key that is %s', (_case, key) => {
    expect(problemCodes({ ...minimal, vapidPublicKey: key })).toEqual(['vapidPublicKey E_VAPID_KEY']);
  });

  it("Safari's legacy push needs the https safariWebServiceUrl; iOS home-screen apps need an icon", () => {
    expect(problemCodes({ ...minimal, safariWebsitePushId: 'web.example.acme' })).toEqual(['safariWebServiceUrl E_SAFARI_WEB_SERVICE_URL']);
    expect(problems({ ...minimal, safariWebsitePushId: 'web.example.acme', safariWebServiceUrl: 'http://acme.example/safari' })).toEqual([
      'safariWebServiceUrl: must be an https URL (Apple requires it)',
    ]);
    expect(problemCodes({ ...minimal, iosHomeScreen: { enabled: true } })).toEqual(['style.iconUrl E_IOS_ICON']);
    expect(problemCodes({ ...minimal, iosHomeScreen: { enabled: true }, style: { iconUrl: 'https://acme.example/icon.png' } })).toEqual([]);
    expect(siteConfigSchema.parse(minimal).iosHomeScreen).toEqual({ enabled: false, instructions: DEFAULT_TEXTS.iosHomeScreen });
  });

  it('include and exclude patterns that cannot compile, by index', () => {
    expect(problemCodes({ ...minimal, includeUrls: ['/ok/*', 'regex:[a-'], excludeUrls: ['blog'] })).toEqual([
      'includeUrls.1 E_URL_PATTERN',
      'excludeUrls.0 E_URL_PATTERN',
    ]);
  });

  it('invalid JSON with its line and column', () => {
    const loaded = parseConfigText('broken.json', '{\n  "hash": "abc",\n  oops\n}');
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.problems).toEqual([
      { code: 'E_CONFIG_JSON', path: '(file)', message: expect.stringMatching(/^invalid JSON at line 3, column 3: /) },
    ]);
  });

  it('a truncated file', () => {
    const loaded = parseConfigText('broken.json', '{\n  "hash": "abc",');
    expect(loaded.ok ? [] : loaded.problems.map((problem) => problem.message)).toEqual([
      expect.stringMatching(/^invalid JSON at line 2, column \d+/),
    ]);
  });
});

describe('doNotShowDays, style.colors and cdnUrl', () => {
  it('doNotShowDays: 7 by default; whole days from 0 to 3650', () => {
    expect(siteConfigSchema.parse(minimal).doNotShowDays).toBe(7);
    expect(siteConfigSchema.parse({ ...minimal, doNotShowDays: 30 }).doNotShowDays).toBe(30);
    expect(problems({ ...minimal, doNotShowDays: 1.5 })).toEqual(['doNotShowDays: Invalid input: expected int, received number']);
    expect(problems({ ...minimal, doNotShowDays: -1 })).toHaveLength(1);
  });

  it('colours: every CSS colour form is accepted', () => {
    const colors = {
      background: '#fffdf5',
      text: 'rgb(20 20 20 / 90%)',
      yesBackground: 'hsl(210, 80%, 40%)',
      yesText: '#FFF',
      noBackground: 'Transparent',
      noText: 'rebeccapurple',
    };
    expect(siteConfigSchema.parse({ ...minimal, style: { colors } }).style.colors).toEqual(colors);
    expect(problems({ ...minimal, style: { colors: { background: 'rgba(0,0,0,.5)', text: '#12345678' } } })).toEqual([]);
  });

  it('colours: anything else is refused, naming the field (they are copied into CSS)', () => {
    for (const bad of [
      'red;background:url(//evil.example/x)',
      'red}body{display:none',
      '#fff</style><script>alert(1)</script>',
      'url(https://evil.example/track.png)',
      'var(--x)',
      'expression(alert(1))',
      'rgb(1,2,3);x:y',
      '#ggg',
      'blue ',
      'notacolour',
      '',
    ]) {
      expect(problems({ ...minimal, style: { colors: { noText: bad } } }), bad).toEqual([
        'style.colors.noText: must be a CSS colour: #rgb, #rrggbb (or with alpha), rgb(...), rgba(...), hsl(...), hsla(...) or a colour name such as navy',
      ]);
    }
    expect(problems({ ...minimal, style: { colors: { border: '#000' } } })[0]).toMatch(/^style\.colors/);
  });

  it('cdnUrl: an https folder URL (http only for localhost), not the file, no query', () => {
    expect(problems({ ...minimal, cdnUrl: 'https://cdn.example.com/acme' })).toEqual([]);
    expect(problems({ ...minimal, cdnUrl: 'http://localhost:8080/dist/acme/' })).toEqual([]);
    expect(problems({ ...minimal, cdnUrl: 'http://cdn.example.com/acme' })).toEqual([
      'cdnUrl: must be an https URL (http only for localhost)',
    ]);
    expect(problems({ ...minimal, cdnUrl: 'https://cdn.example.com/acme/push.js' })).toEqual([
      'cdnUrl: must be the folder where push.js is served, not the file (the snippet adds /push.js)',
    ]);
    expect(problems({ ...minimal, cdnUrl: 'https://cdn.example.com/acme?v=2' })).toEqual(['cdnUrl: must have no query or fragment']);
    expect(problems({ ...minimal, cdnUrl: 'cdn.example.com' })).toEqual(['cdnUrl: must be an absolute http(s) URL']);
  });
});

describe('JSON Schema export', () => {
  it('is current (run `npm run schema` after changing config/schema.ts)', async () => {
    const file = await readFile(new URL('../../schema/site-config.schema.json', import.meta.url), 'utf8');
    expect(file).toBe(siteConfigJsonSchema());
  });

  it('describes every field of spec section 3', () => {
    const schema = JSON.parse(siteConfigJsonSchema()) as { properties: Record<string, { properties?: object }> };
    for (const field of [
      'hash',
      'serverSyncUrl',
      'servicesServerURL',
      'manifestUrl',
      'swPath',
      'firefoxSwPath',
      'vapidPublicKey',
      'safariWebsitePushId',
      'segmentations',
      'clickSegmentations',
      'shopifySegmentations',
      'isShopifyConnectedAccount',
      'includeUrls',
      'excludeUrls',
      'pcBranding',
      'isNativeOptin',
      'style',
      'companyName',
      'origin',
      'isInactive',
      'pageClickTrackingConcent',
    ])
      expect(schema.properties).toHaveProperty(field);
    expect(Object.keys(schema.properties.style!.properties!)).toEqual([
      'iconUrl',
      'brandingType',
      'brandingText',
      'isMobileEnabled',
      'allowTextChildWindow',
      'offerTextChildWindow',
      'colors',
    ]);
  });

  it('is referenced by every site config', async () => {
    const config = JSON.parse(await readFile(new URL('../../site-configs/calligraphy.json', import.meta.url), 'utf8'));
    expect(config.$schema).toBe('../schema/site-config.schema.json');
  });
});
