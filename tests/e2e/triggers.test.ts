// Issue 4's opt-in triggers in Chromium: the built push.js on the example site, against the real provider.
// The soft prompt (the chicklet) must stay hidden until the site's trigger fires, and show when it does:
// scroll by percent, by pixels from the top and from the bottom, each within the 2 px tolerance, and leave
// intent (the pointer leaving through the top edge, threshold 2 px, not in the first second of the view)
// with real mouse moves. Each trigger kind is its own build of the site, served on the same origin.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSite } from '../../emit/build-site.ts';
import { startExampleSite, type RunningExampleSite } from '../../cli/dev/example-site-server.ts';
import { borrowChromium, type TestBrowser } from '../support/browser.ts';
import { startStack, type Stack } from '../support/stack.ts';

const VIEWPORT = { width: 1000, height: 600 };
/** Long enough to scroll several screens on every example page. */
const TALL_PAGE = 'body { min-height: 4000px; }';
/** Only the trigger under test: no segments, no shop, no consent fetch. */
const QUIET = { segmentations: [], isShopifyConnectedAccount: false, pageClickTrackingConcent: false };

let stack: Stack;
let browser: TestBrowser;
let work: string;
let example: RunningExampleSite | undefined;

beforeAll(async () => {
  [stack, browser, work] = await Promise.all([
    startStack({ overrides: { ...QUIET, triggers: { when: 'scroll', scroll: { percent: 50 } } } }),
    borrowChromium([], { viewport: VIEWPORT }),
    mkdtemp(join(tmpdir(), 'push-kit-triggers-')),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await example?.close();
  await stack?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Rebuilds the site with `triggers` and serves that bundle on the stack's origin (same provider). */
async function serveWithTriggers(name: string, triggers: Record<string, unknown>): Promise<void> {
  const configFile = join(work, `${name}.json`);
  await writeFile(configFile, JSON.stringify({ ...stack.config, triggers }));
  const built = await buildSite(configFile, join(work, 'dist'));
  if (!built.ok) throw new Error(JSON.stringify(built.problems));
  expect(built.features).toMatchObject({ triggerScroll: name.startsWith('scroll'), triggerLeaveIntent: name === 'leave-intent' });
  await (example ?? stack.example).close();
  example = await startExampleSite({
    root: join(process.cwd(), 'examples/calligraphy-site'),
    bundleDir: built.dir,
    port: Number(new URL(stack.siteUrl).port),
  });
}

interface TriggerView {
  page: Page;
  promptVisible(): Promise<boolean>;
  /** How many times optInShownCallback was called. */
  shownCount(): Promise<number>;
  pageErrors: string[];
}

/** One page view, once push.js has finished its start (the triggers are armed then). */
async function view(path = '/', options: { fakeClock?: boolean; pausedClock?: boolean } = {}): Promise<TriggerView> {
  const page = await browser.context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  if (options.fakeClock || options.pausedClock) await page.clock.install();
  // paused: the page's time moves only when the test says, however slow the machine
  if (options.pausedClock) await page.clock.pauseAt(Date.now() + 60_000);
  await page.goto(`${stack.siteUrl}${path}`);
  await page.addStyleTag({ content: TALL_PAGE });
  await page.evaluate(() => {
    const host = window as unknown as { shown: number; pushkit: { push(call: unknown[]): void } };
    host.shown = 0;
    host.pushkit.push(['optInShownCallback', () => (host.shown += 1)]);
  });
  await page
    .waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit), undefined, { timeout: 15_000 })
    .catch((error: Error) => {
      throw new Error(`push.js did not start on ${path}: ${error.message}`);
    });
  await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
  return {
    page,
    promptVisible: () => page.locator('[data-pk="chicklet"]').isVisible(),
    shownCount: () => page.evaluate(() => (window as unknown as { shown: number }).shown),
    pageErrors,
  };
}

/** Scrolls to `y` and gives the page's scroll listeners a moment to run. */
async function scrollTo(page: Page, y: number): Promise<void> {
  await page.evaluate((top) => window.scrollTo(0, top), y);
  await page
    .waitForFunction((top) => Math.round(window.scrollY) === top, y, { timeout: 10_000 })
    .catch(async (error: Error) => {
      const at = await page.evaluate(() => [window.scrollY, document.documentElement.scrollHeight - window.innerHeight]);
      throw new Error(`could not scroll to ${y} (at ${at[0]}, scrollable ${at[1]}): ${error.message}`);
    });
  await page.waitForTimeout(150);
}

const scrollable = (page: Page) => page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);

describe('scroll trigger', () => {
  it('percent: no prompt at 3 px short of half the scrollable height, the prompt within the 2 px tolerance', async () => {
    const visit = await view('/');
    const threshold = (await scrollable(visit.page)) * 0.5;
    const firstFiring = Math.ceil(threshold - 2);
    await scrollTo(visit.page, firstFiring - 1);
    await visit.page.waitForTimeout(300);
    expect(await visit.promptVisible()).toBe(false);
    expect(await visit.shownCount()).toBe(0);

    await scrollTo(visit.page, firstFiring);
    await expect.poll(() => visit.promptVisible()).toBe(true);
    expect(await visit.shownCount()).toBe(1);
    expect(visit.pageErrors).toEqual([]);
    // push.js's lifecycle chunk (the prompt and the opt-in): fetched once, after the page's load, never before
    const timing = await visit.page.evaluate(() => ({
      load: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventStart,
      chunks: performance
        .getEntriesByType('resource')
        .filter((entry) => /\/push\.lifecycle\.[0-9a-f]{10}\.js$/.test(entry.name))
        .map((entry) => entry.startTime),
    }));
    expect(timing.chunks).toHaveLength(1);
    expect(timing.chunks[0]).toBeGreaterThanOrEqual(timing.load);
    await visit.page.close();
  });

  it('pixels from the top: fires at 598 px for 600 px, not at 597 px, and only once', async () => {
    await serveWithTriggers('scroll-top', { when: 'scroll', scroll: { pixelsFromTop: 600 } });
    const visit = await view('/submissions.html');
    await scrollTo(visit.page, 597);
    await visit.page.waitForTimeout(300);
    expect(await visit.promptVisible()).toBe(false);

    await scrollTo(visit.page, 598);
    await expect.poll(() => visit.promptVisible()).toBe(true);
    await scrollTo(visit.page, 900);
    await scrollTo(visit.page, 100);
    await scrollTo(visit.page, 700);
    expect(await visit.shownCount()).toBe(1);
    await visit.page.close();
  });

  it('pixels from the bottom: fires within 302 px of the bottom for 300 px, not at 303 px', async () => {
    await serveWithTriggers('scroll-bottom', { when: 'scroll', scroll: { pixelsFromBottom: 300 } });
    const visit = await view('/');
    const bottom = await scrollable(visit.page);
    await scrollTo(visit.page, bottom - 303);
    await visit.page.waitForTimeout(300);
    expect(await visit.promptVisible()).toBe(false);

    await scrollTo(visit.page, bottom - 302);
    await expect.poll(() => visit.promptVisible()).toBe(true);
    expect(await visit.shownCount()).toBe(1);
    await visit.page.close();
  });

  it('a scroll-only site shows no prompt without scrolling, even after the default 5 s delay', async () => {
    const visit = await view('/', { fakeClock: true });
    await visit.page.clock.runFor(60_000);
    expect(await visit.promptVisible()).toBe(false);
    expect(await visit.shownCount()).toBe(0);
    await scrollTo(visit.page, (await scrollable(visit.page)) - 250);
    await expect.poll(() => visit.promptVisible()).toBe(true);
    await visit.page.close();
  });
});

describe('leave-intent trigger', () => {
  it('no prompt when the pointer leaves in the first second, or through the side or bottom; the prompt when it leaves through the top after 1 s', async () => {
    await serveWithTriggers('leave-intent', { when: 'leaveIntent' });
    const visit = await view('/', { pausedClock: true });
    const { mouse } = visit.page;

    // At once after load: out through the top, back in. Exits in the first second do not count.
    await mouse.move(500, 300);
    await mouse.move(500, -20, { steps: 4 });
    await mouse.move(500, 300, { steps: 4 });
    expect(await visit.promptVisible()).toBe(false);

    await visit.page.clock.runFor(1100);
    // Out through the left side and through the bottom, far from the top edge: not an intent to leave.
    await mouse.move(-20, 300, { steps: 4 });
    await mouse.move(500, 300, { steps: 4 });
    await mouse.move(500, VIEWPORT.height + 20, { steps: 4 });
    await mouse.move(500, 300, { steps: 4 });
    // Up to the top edge without leaving the page.
    await mouse.move(500, 3, { steps: 4 });
    await visit.page.clock.runFor(300);
    expect(await visit.promptVisible()).toBe(false);
    expect(await visit.shownCount()).toBe(0);

    await mouse.move(500, -20, { steps: 2 });
    await expect
      .poll(async () => {
        await visit.page.clock.runFor(100);
        return visit.promptVisible();
      })
      .toBe(true);
    expect(await visit.shownCount()).toBe(1);
    expect(visit.pageErrors).toEqual([]);
    await visit.page.close();
  });
});
