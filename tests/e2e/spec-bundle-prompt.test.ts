// Issue 18: rules about whether and when push.js offers the subscription, proven through the built bundle in
// Debian's Chromium against the real provider (unit tests prove the same on the runtime modules in happy-dom):
// the browser minimums of spec section 1 (the browser's user agent decides), the default offer text of
// section 2, include and exclude URL patterns (sections 2 and 5), a trigger expression whose `and` is read as
// `or` (section 5), and branding that follows pcBranding and isNativeOptin (section 2). The time constants and a
// config of only the required fields: spec-bundle-timing.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { borrowChromium, type TestBrowser } from '../support/browser.ts';
import { offerShown as offerShownIn } from '../support/offer.ts';
import { startStacks, type Stack } from '../support/stack.ts';

const HOSTILE = `<img src=x onerror="window.__pwned=1"> & "quotes" </div><script>window.__pwned=2</script>`;
/** The variants of the site the tests look at, each its own build and origin, all on one provider. */
const SITES = {
  minimums: { triggers: { when: 'delay', delaySeconds: 0 } },
  patterns: {
    includeUrls: ['/', '/submissions*', '/checkouts/*'],
    excludeUrls: ['/checkouts/*'],
    // section 5: every and/or of a trigger expression is read as or
    triggers: { when: 'delay and scroll', delaySeconds: 0, scroll: { percent: 90 } },
  },
  hostileTexts: {
    triggers: { when: 'delay', delaySeconds: 0 },
    pcBranding: 1,
    isNativeOptin: 1,
    texts: { offer: `Offer ${HOSTILE}`, noButton: 'No <b>thanks</b>' },
    style: { brandingType: 'custom', brandingText: `Brand ${HOSTILE}` },
  },
  onLoad: { triggers: { when: 'load' } },
  onMousedown: { triggers: { when: 'mousedown', mousedownSelector: '#subscribe-button' } },
  inactive: { isInactive: true, triggers: { when: 'delay', delaySeconds: 0 } },
  chickletBranding: { triggers: { when: 'delay', delaySeconds: 0 }, pcBranding: 1, isNativeOptin: 0 },
};

let browser: TestBrowser;
const stacks = {} as Record<keyof typeof SITES, Stack>;

beforeAll(async () => {
  const names = Object.keys(SITES) as (keyof typeof SITES)[];
  const [launched, started] = await Promise.all([borrowChromium(), startStacks(names.map((name) => ({ overrides: SITES[name] })))]);
  browser = launched;
  names.forEach((name, index) => (stacks[name] = started[index]!));
});
afterAll(async () => {
  await browser?.close();
  for (const stack of Object.values(stacks)) await stack.close();
});

/** Runs `each` on every item, at most `size` at once. */
async function inBatches<T>(items: T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await each(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, lane));
}

const offerShown = (url: string, watchMs: number, userAgent?: string) => offerShownIn(browser.context, url, watchMs, userAgent);

const desktop = (product: string) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) ${product}`;
const android = (product: string) =>
  `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) ${product} Mobile Safari/537.36`;
/** Section 1's minimums, and the version below each: [browser, user agent, offered]. */
const BROWSERS: [string, string, boolean][] = [
  ['Chrome 42', desktop('Chrome/42.0.2311.90 Safari/537.36'), true],
  ['Chrome 41', desktop('Chrome/41.0.2272.118 Safari/537.36'), false],
  ['Firefox 44 desktop', 'Mozilla/5.0 (Windows NT 10.0; rv:44.0) Gecko/20100101 Firefox/44.0', true],
  ['Firefox 43 desktop', 'Mozilla/5.0 (Windows NT 10.0; rv:43.0) Gecko/20100101 Firefox/43.0', false],
  ['Firefox 48 mobile', 'Mozilla/5.0 (Android 9; Mobile; rv:48.0) Gecko/48.0 Firefox/48.0', true],
  ['Firefox 47 mobile', 'Mozilla/5.0 (Android 9; Mobile; rv:47.0) Gecko/47.0 Firefox/47.0', false],
  ['Opera 42 desktop', desktop('Chrome/55.0 Safari/537.36 OPR/42.0.2393.94'), true],
  ['Opera 41 desktop', desktop('Chrome/54.0 Safari/537.36 OPR/41.0'), false],
  ['Opera 39 mobile', android('Chrome/52.0 OPR/39.0'), true],
  ['Opera 38 mobile', android('Chrome/51.0 OPR/38.0'), false],
  ['Edge 17', desktop('Chrome/64.0 Safari/537.36 Edge/17.17134'), true],
  ['Edge 16', desktop('Chrome/58.0 Safari/537.36 Edge/16.16299'), false],
  ['UC 4 mobile', android('Chrome/57.0 UCBrowser/4.0.1'), true],
  ['UC 3 mobile', android('Chrome/57.0 UCBrowser/3.9'), false],
  ['UC on desktop', desktop('Chrome/57.0 UCBrowser/7.0 Safari/537.36'), false],
  ['Samsung 9 mobile', android('SamsungBrowser/9.2 Chrome/67.0'), true],
  ['Samsung 8 mobile', android('SamsungBrowser/8.2 Chrome/63.0'), false],
];

describe('whether and when the built push.js offers the subscription', () => {
  it('each browser minimum of section 1 is offered the default text; the version below it is offered nothing', async () => {
    const stack = stacks.minimums;
    const offered: Record<string, boolean> = {};
    // each browser in a page of its own, a few at a time (the watch is real time: one after another, 8 s of it)
    await inBatches(BROWSERS, 4, async ([browser, userAgent, expected]) => {
      // an offered browser shows it at once (delay 0); one not offered is watched as long
      const { page, shownAt } = await offerShown(`${stack.siteUrl}/`, expected ? 5000 : 1000, userAgent);
      offered[browser] = shownAt !== null;
      // push service readiness (section 4): ready where the browser can subscribe, failed where it cannot
      const readiness = await page.evaluate(async () => {
        const api = (window as unknown as { pushkit: { ready: Promise<void>; readiness: string } }).pushkit;
        await api.ready;
        return api.readiness;
      });
      expect(readiness, browser).toBe(expected ? 'ready' : 'failed');
      if (shownAt !== null) {
        expect((await page.locator('[data-pk]:visible').allTextContents()).join(' ')).toContain(
          'This site wants to notify you when it gets new Calligraphy submissions.',
        );
      }
      await page.close();
    });
    expect(offered).toEqual(Object.fromEntries(BROWSERS.map(([browser, , expected]) => [browser, expected])));
  });

  it('include and exclude patterns decide the pages; a trigger expression with "and" fires on either side', async () => {
    const stack = stacks.patterns;
    const seen: Record<string, boolean> = {};
    const pages: [string, boolean][] = [
      ['/', true],
      ['/submissions.html', true],
      ['/centered.html', false],
      ['/checkouts/1001', false],
    ];
    await inBatches(pages, 4, async ([path, expected]) => {
      const { page, shownAt } = await offerShown(`${stack.siteUrl}${path}`, expected ? 5000 : 1500);
      seen[path] = shownAt !== null;
      await page.close();
    });
    expect(seen).toEqual({ '/': true, '/submissions.html': true, '/centered.html': false, '/checkouts/1001': false });
  });

  it("config text is shown as text: markup in the offer, the buttons and the branding never becomes the page's", async () => {
    const stack = stacks.hostileTexts;
    const { page, shownAt } = await offerShown(`${stack.siteUrl}/`, 5000);
    expect(shownAt).not.toBeNull();
    const shown = (await page.locator('[data-pk]:visible').allTextContents()).join(' ');
    expect(shown).toContain(`Offer ${HOSTILE}`);
    expect(shown).toContain(`Brand ${HOSTILE}`);
    expect(shown).toContain('No <b>thanks</b>');
    expect(await page.locator('[data-pk] img[src="x"], [data-pk] script, [data-pk] b').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.close();
  });

  it('the load trigger offers as the page loads; the mousedown trigger only on a mousedown on its selector', async () => {
    const onLoad = stacks.onLoad;
    const loaded = await offerShown(`${onLoad.siteUrl}/`, 5000);
    const loadedAt = await loaded.page.evaluate(() => performance.getEntriesByType('navigation')[0]!.toJSON().loadEventEnd as number);
    expect(loaded.shownAt).not.toBeNull();
    expect(loaded.shownAt! - loadedAt).toBeLessThan(1000);
    await loaded.page.close();

    const onMousedown = stacks.onMousedown;
    const { page, shownAt } = await offerShown(`${onMousedown.siteUrl}/`, 1500);
    expect(shownAt).toBeNull();
    await page.mouse.move(5, 5);
    await page.mouse.down();
    await page.mouse.up();
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { shown: number[] }).shown)).toEqual([]);
    // a press without a click (the page's own button handler would ask by itself on a click)
    await page.locator('#subscribe-button').hover();
    await page.mouse.down();
    await expect.poll(() => page.evaluate(() => (window as unknown as { shown: number[] }).shown.length)).toBe(1);
    await page.mouse.up();
    await page.close();
  });

  it('isInactive: push.js leaves the page alone (the queue untouched, no prompt, no call to the provider)', async () => {
    const stack = stacks.inactive;
    const page = await browser.context.newPage();
    const toProvider: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(stack.providerUrl)) toProvider.push(request.url());
    });
    await page.goto(`${stack.siteUrl}/`);
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => Array.isArray((window as unknown as { pushkit?: unknown }).pushkit))).toBe(true);
    expect(await page.locator('[data-pk]').count()).toBe(0);
    expect(toProvider).toEqual([]);
    await page.close();
  });

  it('pcBranding 1 with isNativeOptin 0: no branding modal; the chicklet offers instead', async () => {
    const stack = stacks.chickletBranding;
    const { page, shownAt } = await offerShown(`${stack.siteUrl}/`, 5000);
    expect(shownAt).not.toBeNull();
    expect(await page.locator('[data-pk]:visible').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-pk')))).toEqual([
      'chicklet',
    ]);
    expect(await page.locator('[data-pk="modal"]').count()).toBe(0);
    await page.close();
  });
});
