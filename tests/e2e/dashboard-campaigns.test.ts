// Issue 31's campaign findings in Chromium against `push-kit serve` (spawned, embedded database, a dozen
// subscribers on the fake HTTPS push service, the browser on Berlin's clock): campaigns have a home (finding 1):
// the Overview's titles link to a campaign's page and "See all campaigns" to the Campaigns screen, searched,
// filtered and paged by the provider with the page in the address (reload and Back); a campaign's page says when
// it goes on the owner's clock or each subscriber's, and cancels. Figures (finding 2): delivery, shown and click
// rates defined on screen, per browser, over time, and sentences instead of charts of zeros. A/B (finding 3): no
// winner time promised before the test share has gone, the test share checked in %. Finding 8: duplicate,
// "send again to those who did not click", CSV export; the subscriber list searched by tag or time zone, sorted
// by last seen and exported as CSV.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Campaign } from '../../contract/owner-api.ts';
import { openDatabase } from '../../server/db/database.ts';
import { ensureOwnerKey } from '../../server/http/owner-keys.ts';
import { vapidKeyFile } from '../../server/state-paths.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import { createSubscriberKeys, decryptPushBody, type FakePushService } from '../support/fake-push-service.ts';
import { allStarted, borrowChromium, type TestBrowser } from '../support/browser.ts';
import {
  createDashboardProject,
  DASHBOARD_SHOTS as SHOTS,
  openDashboard,
  SETUP_TIMEOUT_MS,
  signIn,
  siteConfig,
  type DashboardProject,
} from '../support/dashboard-serve.ts';

const HASH = 'letters-campaigns-01';
const ORIGIN = 'https://letters.example';
const SUBSCRIBERS = 12;
/** Campaigns beside the named ones, so the list has a second page (20 a page). */
const FILLERS = 19;

let project: DashboardProject;
let providerUrl: string;
let pushService: FakePushService;
let browser: TestBrowser;
let page: Page;
let key: string;
const subscriberKeys = createSubscriberKeys();
/** The campaigns the tests open, by name. */
const ids: Record<'inks' | 'morning' | 'evening' | 'ab', string> = { inks: '', morning: '', evening: '', ab: '' };

async function owner<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${providerUrl}/api/v1/sites/letters${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}
const campaign = async (id: string) => (await owner<{ campaign: Campaign }>('GET', `/campaigns/${id}`)).campaign;
const create = async (body: object) => (await owner<{ campaignId: string }>('POST', '/campaigns', body)).campaignId;
/** A browser's report of a notification (the worker's call), proved by the subscription's endpoint. */
async function report(campaignId: string, path: string, event: 'shown' | 'clicked') {
  const reply = await fetch(`${providerUrl}/notificationEvent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: ORIGIN },
    body: JSON.stringify({ hash: HASH, campaignId, endpoint: `${pushService.origin}${path}`, event }),
  });
  expect(reply.status).toBe(200);
}

beforeAll(async () => {
  project = await createDashboardProject('dashboard-campaigns');
  ({ pushService } = project);
  const vapid = generateVapidKeyPair();
  await writeVapidKeyFile(vapidKeyFile(project.stateDir, 'letters'), vapid);
  // Chromium starts while the database is seeded, the provider starts and the campaigns are made
  await allStarted([
    borrowChromium([], { viewport: { width: 1280, height: 900 }, env: { TZ: 'Europe/Berlin' } }).then((started) => (browser = started)),
    (async () => {
      const db = await openDatabase({ dataDir: join(project.stateDir, 'db') });
      try {
        key = (await ensureOwnerKey(db, { hash: HASH }))!;
        await db.query(
          `INSERT INTO subscribers (id, site_hash, status, endpoint, p256dh, auth, browser_type, language, timezone, created_at, last_sync_at)
           SELECT 'sub-' || i, $1, 'subscribed', $2 || '/push/sub-' || i, $3, $4, CASE WHEN i % 3 = 0 THEN 'firefox' ELSE 'chrome' END,
                  'en-US', 'Europe/Lisbon', now(), now()
             FROM generate_series(1, $5::int) AS i`,
          [HASH, pushService.origin, subscriberKeys.p256dh, subscriberKeys.auth, SUBSCRIBERS],
        );
        // one subscriber in Tokyo, seen last of all a minute ago; one on the pro plan
        await db.query(`UPDATE subscribers SET timezone = 'Asia/Tokyo', last_sync_at = now() + interval '1 minute' WHERE id = 'sub-7'`);
        await db.query(`INSERT INTO subscriber_tags (subscriber_id, key, value) VALUES ('sub-5', 'plan', 'pro')`);
      } finally {
        await db.close();
      }
      providerUrl = await project.serve((url) => ({ letters: siteConfig(url, HASH, 'Letters', ORIGIN, vapid.publicKey) }));

      // The campaigns: one to everyone, delivered, half of it reported shown and a quarter clicked (the Firefox
      // subscribers among them); fillers to one subscriber; one at 09:00 on each subscriber's clock, one at a time,
      // an A/B test at a time.
      for (let index = 1; index <= FILLERS; index += 1) {
        await create({ title: `Weekly letter ${index}`, body: 'News from the workshop', subscriberId: 'sub-1' });
      }
      ids.inks = await create({ title: 'Autumn inks', body: 'Nine new inks for the autumn', url: `${ORIGIN}/inks` });
      for (const started = Date.now(); (await campaign(ids.inks)).status !== 'done';) {
        if (Date.now() - started > 90_000) throw new Error('the campaign to everyone did not finish');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const paths = pushService.requests
        .filter(
          (request) => JSON.parse(decryptPushBody(request.body, subscriberKeys).toString('utf8')).notification.title === 'Autumn inks',
        )
        .map((request) => request.path)
        .sort();
      expect(paths).toHaveLength(SUBSCRIBERS);
      for (const path of paths.slice(0, 6)) await report(ids.inks, path, 'shown');
      for (const path of paths.filter((each) => Number(each.split('-')[1]) % 3 === 0).slice(0, 3)) await report(ids.inks, path, 'clicked');
      ids.morning = await create({ title: 'Morning letters', body: 'Coffee and ink', localTime: '09:00' });
      // 12:30 UTC on a summer day is 14:30 in Berlin (GMT+2)
      ids.evening = await create({ title: 'Evening letters', body: 'Candles and ink', sendAt: '2099-06-01T12:30:00Z' });
      ids.ab = await create({
        title: 'Quill test',
        body: 'Which quill?',
        variants: [{}, { title: 'Quills, new' }],
        testFraction: 0.5,
        winnerAfterMinutes: 30,
        sendAt: '2099-06-02T08:00:00Z',
      });
    })(),
  ]);
  page = await browser.context.newPage();
  await openDashboard(page, providerUrl);
  await signIn(page, key);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await project?.close();
});

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
const hash = () => new URL(page.url()).hash;
const listed = () => page.getByRole('table', { name: 'Campaigns' }).locator('tbody tr');
const openCampaign = async (id: string, title: string) => {
  await page.goto(`${providerUrl}/dashboard/#/campaigns/${id}`);
  await page.getByRole('heading', { name: title }).waitFor();
};

describe('dashboard campaigns', () => {
  it('gives campaigns a home: Overview links, a list searched, filtered and paged by the provider, the page in the address', async () => {
    // the Overview's title opens the campaign's page
    await page.getByRole('link', { name: 'Autumn inks' }).click();
    await page.getByRole('heading', { name: /^Autumn inks/ }).waitFor();
    expect(hash()).toBe(`#/campaigns/${ids.inks}`);
    await page.goBack();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    // "See all campaigns": every campaign, 20 a page, newest first
    await page.getByRole('link', { name: 'See all campaigns' }).click();
    await page.getByRole('heading', { name: 'Campaigns', exact: true }).waitFor();
    const total = FILLERS + 4;
    await expect.poll(() => page.locator('#campaign-list-title').textContent()).toBe(`${total} campaigns`);
    expect(await listed().count()).toBe(20);
    expect(await listed().first().locator('td').first().textContent()).toBe('Quill test');
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => listed().count()).toBe(total - 20);
    expect(hash()).toBe('#/campaigns?page=2');
    await page.reload();
    await expect.poll(() => listed().count()).toBe(total - 20);
    await page.goBack();
    await expect.poll(() => listed().count()).toBe(20);

    // by words of the title or body, and by status; the filter stays in the address
    await page.getByLabel('Search').fill('INK');
    await expect.poll(() => listed().allTextContents()).toHaveLength(3);
    expect(hash()).toBe('#/campaigns?q=INK');
    await page.getByLabel('Status').selectOption('scheduled');
    await expect.poll(() => listed().locator('td:first-child').allTextContents()).toEqual(['Evening letters', 'Morning letters']);
    expect(hash()).toBe('#/campaigns?q=INK&status=scheduled');
    await page.getByLabel('Date').selectOption('oldest');
    await expect.poll(() => listed().locator('td:first-child').allTextContents()).toEqual(['Morning letters', 'Evening letters']);
    await page.getByLabel('Search').fill('nothing of the kind');
    await expect.poll(() => page.locator('[data-empty="campaigns"]').textContent()).toBe('No campaign matches this search and filter.');
    await shot('campaigns-list');
  });

  it("says when a campaign goes, on the owner's clock or each subscriber's, and cancels it from its page", async () => {
    await openCampaign(ids.morning, 'Morning letters');
    expect(await page.locator('[data-schedule]').textContent()).toBe("Goes at 09:00 on each subscriber's clock.");
    await openCampaign(ids.evening, 'Evening letters');
    expect(await page.locator('[data-schedule]').textContent()).toBe('Goes at 2099-06-01 14:30 GMT+2 (your clock), 2099-06-01 12:30 UTC.');
    // nothing delivered: sentences, not charts of zeros
    expect(await page.locator('[data-empty="timeline"]').textContent()).toBe(
      'Nothing delivered or reported yet: the chart starts with the first delivery.',
    );
    expect(await page.locator('figure.chart').count()).toBe(0);
    expect(await page.locator('[data-empty="browsers"]').count()).toBe(1);
    await shot('campaign-scheduled');

    await page.getByRole('button', { name: 'Cancel campaign' }).click();
    await page.getByRole('button', { name: 'Yes, withdraw what has not gone' }).click();
    await expect.poll(() => page.locator('h1 .badge').textContent()).toBe('Cancelled');
    expect((await campaign(ids.evening)).status).toBe('cancelled');
    await page.reload();
    await expect.poll(() => page.locator('h1 .badge').textContent()).toBe('Cancelled');
    expect(await page.getByRole('button', { name: 'Cancel campaign' }).count()).toBe(0);
  });

  it('shows figures with each rate defined: per browser and over time', async () => {
    await openCampaign(ids.inks, 'Autumn inks');
    const figure = (name: string) => page.locator(`[data-figure="${name}"]`).textContent();
    await expect.poll(() => figure('delivered')).toBe('12');
    expect(await figure('shown')).toBe('6');
    expect(await figure('clicked')).toBe('3');
    // delivered / sent, shown / delivered, clicked / shown
    expect(await figure('deliveryRate')).toBe('100.0%');
    expect(await figure('shownRate')).toBe('50.0%');
    expect(await figure('clickRate')).toBe('50.0%');
    const legend = page.getByRole('definition');
    expect(await legend.allTextContents()).toEqual([
      'Delivered ÷ sent: of the notifications the sender tried, the share the push service took.',
      "Shown ÷ delivered: of those delivered, the share the subscriber's browser reported shown.",
      'Clicked ÷ shown: of those shown, the share clicked (each subscriber once).',
    ]);
    expect(await page.locator('abbr', { hasText: 'Click rate' }).first().getAttribute('title')).toBe(
      'Clicked ÷ shown: of those shown, the share clicked (each subscriber once).',
    );

    const browsers = page.getByRole('table', { name: 'By browser' });
    await browsers.waitFor();
    const row = (name: string) => browsers.locator(`tr[data-row="${name}"] td`).allTextContents();
    const firefox = await row('firefox');
    expect(firefox.slice(0, 6)).toEqual(['firefox', '4', '4', '4', firefox[4]!, '3']);
    expect((await row('chrome')).slice(0, 4)).toEqual(['chrome', '8', '8', '8']);
    const timeline = page.locator('figure[data-chart="campaign-timeline"]');
    await timeline.waitFor();
    expect(await timeline.getAttribute('aria-label')).toBe('By hour: 12 delivered, 6 shown, 3 clicked.');
    await shot('campaign-figures');
  });

  it('promises no winner time before the test share has gone, and takes the test share in %', async () => {
    await openCampaign(ids.ab, 'Quill test');
    expect(await page.locator('[data-winner]').textContent()).toBe(
      'The winner is picked 30 minutes after the test share has been delivered; it has not all gone yet.',
    );
    await page.goto(`${providerUrl}/dashboard/#/compose`);
    await page.getByRole('heading', { name: 'Send a notification' }).waitFor();
    await page.getByLabel('Title', { exact: true }).fill('Quills again');
    await page.getByLabel('Message', { exact: true }).fill('Which quill?');
    await page.getByLabel('Test variants of this notification').check();
    await page.getByLabel('Variant B title').fill('Quills, again');
    await page.getByLabel('Share of the audience in the test (%)').fill('2');
    await page.getByLabel('Pick the winner after (minutes)').fill('60');
    await page.getByRole('button', { name: 'Review and send' }).click();
    await expect.poll(() => page.locator('#testPercent-problem').textContent()).toBe('must be 5 % or more');
  });

  it('searches subscribers by tag or time zone, sorts them by last seen, and exports the list as CSV', async () => {
    await page.getByRole('link', { name: 'Subscribers' }).click();
    await page.getByRole('heading', { name: 'Subscribers' }).waitFor();
    const ids = () => page.locator('table tbody tr td:first-child').allTextContents();
    await page.getByLabel('Search').fill('plan=pro');
    await expect.poll(() => page.locator('[data-total]').getAttribute('data-total')).toBe('1');
    expect((await ids())[0]).toContain('sub-5');
    await page.getByLabel('Search').fill('asia/tokyo');
    await expect.poll(async () => (await ids()).join()).toContain('sub-7');
    expect(await page.locator('[data-total]').getAttribute('data-total')).toBe('1');
    await page.getByLabel('Search').fill('');
    await expect.poll(() => page.locator('[data-total]').getAttribute('data-total')).toBe(String(SUBSCRIBERS));
    await page.getByLabel('Order').selectOption('lastSeen');
    await expect.poll(async () => (await ids())[0]).toContain('sub-7');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export this list (CSV)' }).click();
    const lines = (await readFile((await (await download).path())!, 'utf8')).split('\r\n');
    expect(lines[0]).toBe('id,status,browser,language,time zone,subscribed at,last seen,segments,tags');
    expect(lines[1]).toMatch(/^sub-7,subscribed,chrome,en-US,Asia\/Tokyo,/);
    expect(lines.filter((line) => line.startsWith('sub-'))).toHaveLength(SUBSCRIBERS);
    expect(lines.find((line) => line.startsWith('sub-5,'))).toMatch(/,plan=pro$/);
  });

  it('duplicates a campaign, sends it again to those who did not click, and exports its results as CSV', async () => {
    await openCampaign(ids.inks, 'Autumn inks');
    await page.getByRole('link', { name: 'Duplicate' }).click();
    await expect.poll(() => page.getByLabel('Title', { exact: true }).inputValue()).toBe('Autumn inks');
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('Nine new inks for the autumn');

    await openCampaign(ids.inks, 'Autumn inks');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export results (CSV)' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`campaign-${ids.inks}.csv`);
    const lines = (await readFile((await file.path())!, 'utf8')).split('\r\n');
    expect(lines[0]).toBe('section,name,recipients,sent,delivered,shown,clicked,delivery rate,shown rate,click rate');
    expect(lines[1]).toBe('total,Autumn inks,12,12,12,6,3,100.0%,50.0%,50.0%');
    expect(lines.filter((line) => line.startsWith('browser,'))).toHaveLength(2);

    const before = pushService.requests.length;
    await page.getByRole('button', { name: 'Send again to those who did not click' }).click();
    await page.getByRole('button', { name: /^Yes, send it again now/ }).click();
    const notice = page.getByRole('status');
    await expect.poll(() => notice.textContent()).toMatch(/^Sending again to the 9 subscribers who did not click: campaign (\d+)\./);
    const resentId = /campaign (\d+)\./.exec((await notice.textContent())!)![1]!;
    await expect.poll(() => pushService.requests.length - before, { timeout: 30_000 }).toBe(9);
    await notice.getByRole('link', { name: 'Open it' }).click();
    await page.getByRole('heading', { name: /^Autumn inks/ }).waitFor();
    expect(hash()).toBe(`#/campaigns/${resentId}`);
    await expect.poll(() => page.getByRole('link', { name: `campaign ${ids.inks}` }).count()).toBe(1);
    expect((await campaign(resentId)).resendOf).toBe(ids.inks);
    await shot('campaign-resent');
  });
});
