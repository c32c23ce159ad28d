// Issue 4's segment membership in Chromium: the built push.js on the example site, a real subscription
// (pushManager.subscribe through the fake GCM check-in) and the real provider. A rule segment whose condition
// holds is joined once per version (`/as`, the wingifySegment-{id} marker, the provider's membership); one
// whose condition does not hold makes no call; a new version (`vn`) is evaluated again; click segments (given
// as a JSON string, as section 5 allows) join
// on a click, survive a click that leaves the page, retry a failed add on a later view, and are skipped
// without tracking consent. The tests share one browser profile and run in order, as one visitor.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSite } from '../../emit/build-site.ts';
import { startExampleSite, type RunningExampleSite } from '../../cli/dev/example-site-server.ts';
import { isMember } from '../../server/segments/segment-store.ts';
import { borrowChromium, type TestBrowser } from '../support/browser.ts';
import { sharedFakeGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { subscribeThroughApi } from '../support/subscribe.ts';

const SEGMENTS = [
  { sid: 'submission-readers', ss: 'path startsWith "/submissions"', vn: 1 },
  { sid: 'newsletter', ss: 'query.utm_source == "newsletter"', vn: 1 },
];
const CLICK_SEGMENTS = [
  { sid: 'notify-clickers', selector: '#subscribe-button', vn: 1 },
  { sid: 'shop-visitors', selector: 'header a[href="/products/gold-nib-pen.html"]', vn: 1 },
];

let stack: Stack;
let gcm: FakeGcm;
let browser: TestBrowser;
let work: string;
let example: RunningExampleSite | undefined;
let subscriberId = '';

beforeAll(async () => {
  gcm = await sharedFakeGcm();
  [stack, browser, work] = await Promise.all([
    startStack({
      overrides: {
        segmentations: SEGMENTS,
        // section 5: click segmentations may be a JSON string; the array form is proven by the shop's segments
        clickSegmentations: JSON.stringify(CLICK_SEGMENTS),
        isShopifyConnectedAccount: false,
        pageClickTrackingConcent: false,
      },
    }),
    borrowChromium(gcm.chromiumArgs),
    mkdtemp(join(tmpdir(), 'push-kit-segments-')),
  ]);
  await browser.context.grantPermissions(['notifications'], { origin: stack.siteUrl });
});
afterAll(async () => {
  await browser?.close();
  await gcm?.close();
  await example?.close();
  await stack?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

interface SegmentAdd {
  id: string;
  customer_hash: string;
  subscribers: string[];
}

interface View {
  page: Page;
  /** The `/as` calls this page made, in order. */
  adds: SegmentAdd[];
  pageErrors: string[];
  local(key: string): Promise<string | null>;
}

/** One page view, once push.js has finished its sync (segments are evaluated by then). */
async function view(path: string): Promise<View> {
  const page = await browser.context.newPage();
  const adds: SegmentAdd[] = [];
  const pageErrors: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== stack.providerUrl || url.pathname !== '/as') return;
    adds.push({
      id: url.searchParams.get('id')!,
      customer_hash: url.searchParams.get('customer_hash')!,
      subscribers: url.searchParams.getAll('subscriber_list[]'),
    });
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${stack.siteUrl}${path}`);
  await page.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
  await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
  return { page, adds, pageErrors, local: (key) => page.evaluate((name) => localStorage.getItem(name), key) };
}

const member = (sid: string) => isMember(stack.db, stack.config.hash, sid, subscriberId);

async function segmentAddEvents(sid: string): Promise<number> {
  const { rows } = await stack.db.query<{ count: string }>(
    `SELECT count(*) AS count FROM events WHERE site_hash = $1 AND subscriber_id = $2 AND kind = 'segment-add' AND detail::jsonb ->> 'segment' = $3`,
    [stack.config.hash, subscriberId, sid],
  );
  return Number(rows[0]!.count);
}

/** Rebuilds the site with other segment entries and serves that bundle on the same origin and provider. */
async function serveWithSegments(name: string, segmentations: typeof SEGMENTS): Promise<void> {
  const configFile = join(work, `${name}.json`);
  await writeFile(configFile, JSON.stringify({ ...stack.config, segmentations }));
  const built = await buildSite(configFile, join(work, 'dist'));
  if (!built.ok) throw new Error(JSON.stringify(built.problems));
  await (example ?? stack.example).close();
  example = await startExampleSite({
    root: join(process.cwd(), 'examples/calligraphy-site'),
    bundleDir: built.dir,
    port: Number(new URL(stack.siteUrl).port),
  });
}

describe('rule segments', () => {
  it('before subscribing no segment is joined; subscribing on a page where no condition holds joins none', async () => {
    const early = await view('/submissions.html');
    await early.page.waitForTimeout(300);
    expect(early.adds).toEqual([]);
    expect(await early.local('wingifySegment-submission-readers')).toBeNull();
    await early.page.close();

    const visit = await view('/');
    subscriberId = (await subscribeThroughApi(visit.page)).subscriberId;
    expect(subscriberId).toMatch(/^[\w-]+$/);
    await visit.page.waitForTimeout(300);
    expect(visit.adds).toEqual([]);
    await visit.page.close();
  });

  it('a condition that holds: /as with the subscriber, the wingifySegment marker, and the provider records the membership; the false one makes no call', async () => {
    const visit = await view('/submissions.html');
    await expect.poll(() => visit.local('wingifySegment-submission-readers')).toBe('1');
    expect(visit.adds).toEqual([{ id: 'submission-readers', customer_hash: stack.config.hash, subscribers: [subscriberId] }]);
    expect(await member('submission-readers')).toBe(true);
    expect(await member('newsletter')).toBe(false);
    expect(await visit.local('wingifySegment-newsletter')).toBeNull();
    expect(visit.pageErrors).toEqual([]);
    await visit.page.close();

    const again = await view('/submissions.html');
    await again.page.waitForTimeout(300);
    expect(again.adds).toEqual([]);
    await again.page.close();
  });

  it('a query-parameter condition holds only on the page that carries it', async () => {
    const visit = await view('/?utm_source=newsletter');
    await expect.poll(() => visit.local('wingifySegment-newsletter')).toBe('1');
    expect(visit.adds.map((add) => add.id)).toEqual(['newsletter']);
    expect(await member('newsletter')).toBe(true);
    await visit.page.close();
  });

  it('a new version (vn) is evaluated again: no call where the condition is false, one call where it holds', async () => {
    await serveWithSegments('vn2', [{ ...SEGMENTS[0]!, vn: 2 }, SEGMENTS[1]!]);
    const elsewhere = await view('/');
    await elsewhere.page.waitForTimeout(300);
    expect(elsewhere.adds).toEqual([]);
    expect(await elsewhere.local('wingifySegment-submission-readers')).toBe('1');
    await elsewhere.page.close();

    const visit = await view('/submissions.html');
    await expect.poll(() => visit.local('wingifySegment-submission-readers')).toBe('2');
    expect(visit.adds.map((add) => add.id)).toEqual(['submission-readers']);
    expect(await segmentAddEvents('submission-readers')).toBe(2);
    await visit.page.close();
  });
});

describe('click segments', () => {
  it('a click on a matching element joins the segment; a click elsewhere does not', async () => {
    const visit = await view('/');
    await visit.page.locator('main p').first().click();
    // no wait for what the first click did not do: a join it started would go through the same chunk and its
    // request before the second click's, so the one add below proves the first click joined nothing
    await visit.page.locator('#subscribe-button').click();
    await expect.poll(() => visit.local('wingifySegment-notify-clickers')).toBe('1');
    expect(visit.adds).toEqual([{ id: 'notify-clickers', customer_hash: stack.config.hash, subscribers: [subscriberId] }]);
    expect(await member('notify-clickers')).toBe(true);
    expect(await visit.local('wingifyRetrySegment-notify-clickers')).toBeNull();
    await visit.page.close();
  });

  it('without tracking consent a click joins nothing', async () => {
    const visit = await view('/');
    await visit.page.evaluate(() =>
      (window as unknown as { pushkit: { setTrackingConsent(allowed: boolean): void } }).pushkit.setTrackingConsent(false),
    );
    await visit.page.locator('header a[href="/products/gold-nib-pen.html"]').click();
    await visit.page.waitForURL('**/products/gold-nib-pen.html');
    await visit.page.waitForTimeout(500);
    expect(visit.adds).toEqual([]);
    expect(await member('shop-visitors')).toBe(false);
    await visit.page.evaluate(() =>
      (window as unknown as { pushkit: { setTrackingConsent(allowed: boolean): void } }).pushkit.setTrackingConsent(true),
    );
    await visit.page.close();
  });

  it('a failed add stores wingifyRetrySegment and the next view retries it', async () => {
    const failing = await view('/');
    await failing.page.route(
      (url) => url.origin === stack.providerUrl && url.pathname === '/as',
      (route) => route.abort('connectionrefused'),
    );
    await failing.page
      .locator('main')
      .evaluate((main) =>
        main.insertAdjacentHTML('beforeend', '<header><a href="/products/gold-nib-pen.html" id="stay">Shop</a></header>'),
      );
    await failing.page.locator('#stay').evaluate((link) => link.addEventListener('click', (event) => event.preventDefault()));
    await failing.page.locator('#stay').click();
    await expect.poll(() => failing.adds.length).toBe(1);
    await failing.page.waitForTimeout(300);
    expect(await failing.local('wingifyRetrySegment-shop-visitors')).toBe('1');
    expect(await failing.local('wingifySegment-shop-visitors')).toBeNull();
    expect(await member('shop-visitors')).toBe(false);
    await failing.page.close();

    const next = await view('/submissions.html');
    await expect.poll(() => next.local('wingifySegment-shop-visitors')).toBe('1');
    expect(next.adds.map((add) => add.id)).toEqual(['shop-visitors']);
    expect(await next.local('wingifyRetrySegment-shop-visitors')).toBeNull();
    expect(await member('shop-visitors')).toBe(true);
    await next.page.close();
  });

  it('a click on a link that leaves the page still ends in the membership', async () => {
    await stack.db.query(
      `DELETE FROM segment_memberships WHERE subscriber_id = $1 AND segment_id = (SELECT id FROM segments WHERE site_hash = $2 AND sid = 'shop-visitors')`,
      [subscriberId, stack.config.hash],
    );
    const visit = await view('/');
    await visit.page.evaluate(() => localStorage.removeItem('wingifySegment-shop-visitors'));
    await visit.page.locator('header a[href="/products/gold-nib-pen.html"]').click();
    await visit.page.waitForURL('**/products/gold-nib-pen.html');
    await expect.poll(() => member('shop-visitors')).toBe(true);
    await expect.poll(() => visit.local('wingifySegment-shop-visitors')).toBe('1');
    expect(await visit.local('wingifyRetrySegment-shop-visitors')).toBeNull();
    expect(visit.pageErrors).toEqual([]);
    await visit.page.close();
  });
});
