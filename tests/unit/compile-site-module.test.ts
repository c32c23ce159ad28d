import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { siteConfigSchema, type SiteConfigInput } from '../../config/schema.ts';
import { validConfig } from '../support/valid-config.ts';
import { generateSiteModule, generateWorkerSiteModule, promptBundle } from '../../compiler/site-module.ts';
import { siteFeatures } from '../../compiler/features.ts';
import { renderPrompts } from '../../emit/render-prompts.tsx';
import type { PromptMarkup, SiteModule, WorkerSiteModule } from '../../runtime/site-module.ts';

const VAPID = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';
const HOSTILE = 'Ink "&" \'Quill\' </script><script>alert(1)</script> */ `${x}` \u2028\u2029 \\ end';
const base: SiteConfigInput = {
  hash: 'module-test-01',
  companyName: 'Module Test',
  origin: 'https://site.example',
  serverSyncUrl: 'https://push.example///',
  vapidPublicKey: VAPID,
};

const dir = await mkdtemp(join(tmpdir(), 'pk-module-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
let counter = 0;

async function importSource<T>(source: string): Promise<T> {
  const file = join(dir, `module-${counter++}.mjs`);
  await writeFile(file, source);
  return (await import(pathToFileURL(file).href)) as T;
}

async function loadSite(input: Partial<SiteConfigInput>): Promise<{ site: SiteModule; source: string; prompts: PromptMarkup }> {
  const { config, compiled } = validConfig({ ...base, ...input });
  const prompts = await renderPrompts(config, siteFeatures(config, compiled));
  const source = generateSiteModule(config, compiled, prompts);
  return { site: (await importSource<{ site: SiteModule }>(source)).site, source, prompts };
}

describe('generateSiteModule', () => {
  it("puts the child window on the site's own childWindowOrigin when it has one", async () => {
    const { site } = await loadSite({ origin: 'http://shop.example', childWindowOrigin: 'https://shop.push.example/' });
    expect(site.childWindowUrl).toBe('https://shop.push.example/sites/module-test-01/child-window.html');
    expect(site.serverSyncUrl).toBe('https://push.example');
  });

  it('emits every SiteModule field with trailing slashes stripped and defaults applied', async () => {
    const { site } = await loadSite({});
    expect(site).toMatchObject({
      hash: 'module-test-01',
      companyName: 'Module Test',
      origin: 'https://site.example',
      serverSyncUrl: 'https://push.example',
      servicesServerUrl: 'https://push.example',
      manifestUrl: '/manifest.json',
      swPath: '/sw.js',
      firefoxSwPath: '/sw-firefox.js',
      swScope: '/',
      vapidPublicKey: VAPID,
      vapidKeyHead: VAPID.slice(0, 20),
      childWindowUrl: 'https://push.example/sites/module-test-01/child-window.html',
      isInactive: false,
      triggers: { anyOf: ['delay'], delayMs: 5000, persist: 'page' },
      segments: [],
      clickSegments: [],
      shopSegments: [],
    });
    expect(site.safariWebsitePushId).toBeUndefined();
    expect(Object.keys(site).sort()).toEqual(
      [
        'hash',
        'companyName',
        'origin',
        'serverSyncUrl',
        'servicesServerUrl',
        'manifestUrl',
        'swPath',
        'firefoxSwPath',
        'swScope',
        'vapidPublicKey',
        'vapidKeyHead',
        'childWindowUrl',
        'isInactive',
        'urlQualifies',
        'triggers',
        'segments',
        'clickSegments',
        'shopSegments',
        'prompts',
      ].sort(),
    );
  });

  it('uses servicesServerURL when given and converts the delay to milliseconds', async () => {
    const { site } = await loadSite({
      servicesServerURL: 'https://services.example/',
      triggers: { when: 'delay or scroll', delaySeconds: 2.5, scroll: { percent: 40 }, persist: 'session' },
    });
    expect(site.servicesServerUrl).toBe('https://services.example');
    const { scrolled, ...triggers } = site.triggers;
    expect(triggers).toEqual({ anyOf: ['delay', 'scroll'], watch: [], delayMs: 2500, persist: 'session' });
    // 40% of 2000 px scrollable, within 2 px
    expect([797, 798].map((top) => scrolled?.(top, 2000))).toEqual([false, true]);
    expect((await loadSite({ triggers: { when: 'scroll', scroll: {} } })).site.triggers.scrolled).toBeUndefined();
  });

  it('compiles includeUrls / excludeUrls into urlQualifies, ignoring the fragment', async () => {
    const { site, source } = await loadSite({
      includeUrls: ['/blog/*', 'contains:promo', 'regex:^https://site\\.example/p/\\d+$'],
      excludeUrls: ['/blog/drafts/*'],
    });
    // regular expression literals, parsed once per page, not a `new RegExp` at each call
    expect(source).not.toContain('new RegExp');
    expect(site.urlQualifies('https://site.example/p/12')).toBe(true);
    expect(site.urlQualifies('https://site.example/p/12/x')).toBe(false);
    expect(site.urlQualifies('https://site.example/blog/post')).toBe(true);
    expect(site.urlQualifies('https://site.example/shop?promo=1')).toBe(true);
    expect(site.urlQualifies('https://site.example/shop')).toBe(false);
    expect(site.urlQualifies('https://site.example/blog/drafts/x')).toBe(false);
    expect(site.urlQualifies('https://site.example/about#/blog/x')).toBe(false);
    expect(site.urlQualifies('https://site.example/about#promo')).toBe(false);
    const everything = await loadSite({});
    expect(everything.site.urlQualifies('https://site.example/anything?at=all#x')).toBe(true);
    const none = await loadSite({ includeUrls: [] });
    expect(none.site.urlQualifies('https://site.example/')).toBe(false);
  });

  it('turns segments into entries whose tests are functions; a shop segment without a condition always holds', async () => {
    const { site } = await loadSite({
      segmentations: [{ sid: 3, ss: 'path startsWith "/a"', vn: 2 }],
      clickSegmentations: [{ sid: 'cta', selector: 'a[href="/buy"]' }],
      shopifySegmentations: [{ sid: 7, event: 'order' }],
    });
    expect(site.segments).toHaveLength(1);
    expect(site.segments[0]).toMatchObject({ sid: 3, vn: 2 });
    expect(typeof site.segments[0]?.test).toBe('function');
    expect(site.clickSegments).toEqual([{ sid: 'cta', vn: 1, selector: 'a[href="/buy"]' }]);
    expect(site.shopSegments[0]).toMatchObject({ sid: 7, vn: 1, event: 'order' });
    expect(site.shopSegments[0]?.test({})).toBe(true);
  });

  it('hostile config texts cannot break out: the module parses and every text round-trips', async () => {
    const { site, source, prompts } = await loadSite({
      companyName: HOSTILE,
      texts: { offer: HOSTILE, yesButton: 'Yes `${1}`' },
      clickSegmentations: [{ sid: 1, selector: `[data-x="</script>*/\u2028"]` }],
      includeUrls: ['contains:</script>', '/a*/', 'regex:.*(?<=/lb)x'],
    });
    expect(site.companyName).toBe(HOSTILE);
    expect(site.clickSegments[0]?.selector).toBe(`[data-x="</script>*/\u2028"]`);
    expect(site.prompts).toEqual(promptBundle(prompts));
    expect(site.urlQualifies('https://site.example/x</script>')).toBe(true);
    expect(site.urlQualifies('https://site.example/a*/')).toBe(true);
    expect(site.urlQualifies('https://site.example/lbx')).toBe(true);
    expect(site.urlQualifies('https://site.example/lx')).toBe(false);
    expect(source).not.toMatch(/<\/script/i);
    expect(source).not.toMatch(/[\u2028\u2029]/);
  });
});

describe('generateWorkerSiteModule', () => {
  it('emits what the service workers need', async () => {
    const config = siteConfigSchema.parse({ ...base, style: { iconUrl: 'https://site.example/i.png' } });
    const { workerSite } = await importSource<{ workerSite: WorkerSiteModule }>(generateWorkerSiteModule(config));
    expect(workerSite).toEqual({
      hash: 'module-test-01',
      origin: 'https://site.example',
      serverSyncUrl: 'https://push.example',
      vapidPublicKey: VAPID,
      swScope: '/',
      iconUrl: 'https://site.example/i.png',
      companyName: 'Module Test',
      notificationClickOrigins: [],
    });
  });
});

describe('siteFeatures', () => {
  const features = (input: Partial<SiteConfigInput>) => {
    const { config, compiled } = validConfig({ ...base, ...input });
    return siteFeatures(config, compiled);
  };

  it('brandingModal needs pcBranding 1 and isNativeOptin not 0', () => {
    expect(features({ pcBranding: 1 }).brandingModal).toBe(true);
    expect(features({ pcBranding: 1, isNativeOptin: 0 }).brandingModal).toBe(false);
    expect(features({ pcBranding: 0 }).brandingModal).toBe(false);
  });

  it('childWindow only for a remote plain-http origin', () => {
    expect(features({ origin: 'http://shop.example' }).childWindow).toBe(true);
    for (const origin of [
      'https://shop.example',
      'http://localhost:8080',
      'http://127.0.0.2',
      'http://[::1]:3000',
      'http://app.localhost',
    ]) {
      expect(features({ origin }).childWindow, origin).toBe(false);
    }
  });

  it('the segment context holds only the fields the conditions read (beyond the path)', () => {
    const flags = (ss: string) => {
      const { segmentPage, segmentQuery, segmentVisits, segmentTime, segmentTags, segmentEvents } = features({
        segmentations: [{ sid: 1, ss, vn: 1 }],
      });
      return { segmentPage, segmentQuery, segmentVisits, segmentTime, segmentTags, segmentEvents };
    };
    const none = {
      segmentPage: false,
      segmentQuery: false,
      segmentVisits: false,
      segmentTime: false,
      segmentTags: false,
      segmentEvents: false,
    };
    expect(flags('path startsWith "/a"')).toEqual(none);
    expect(flags('referrer contains "mail" and query.utm_source == "x"')).toEqual({ ...none, segmentPage: true, segmentQuery: true });
    expect(flags('visitCount > 2 and timeOnSite > 5')).toEqual({ ...none, segmentVisits: true, segmentTime: true });
    expect(flags('tag.plan == "gold" or event.scroll')).toEqual({ ...none, segmentTags: true, segmentEvents: true });
  });

  it('trigger kinds come from the trigger expression', () => {
    const on = features({ triggers: { when: 'scroll or ecom.order or leaveIntent' } });
    expect(on).toMatchObject({
      triggerScroll: true,
      triggerEcom: true,
      triggerLeaveIntent: true,
      triggerClick: false,
      triggerInterval: false,
    });
  });
});
