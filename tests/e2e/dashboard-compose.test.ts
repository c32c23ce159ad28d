// Issue 31's compose findings in Chromium against `push-kit serve` (spawned, embedded database, a few subscribers
// on the fake HTTPS push service): a half-written message kept by the provider as a draft across a change of
// screen and a reload, listed, deleted once sent (finding 8); templates; a campaign duplicated into the form from
// the address; previews per platform with each one's truncation, per variant and language (finding 7); a test sent
// to this very browser, subscribed as a test device on the dashboard's own scope, that shows there and counts
// nowhere (finding 8); and every screen at 390 px: no sideways scroll, 44 px targets (finding 6). Screenshots at
// 1280 and 390 px go to tests/artifacts/dashboard/.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page, Request, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.ts';
import { ensureOwnerKey } from '../../server/http/owner-keys.ts';
import { vapidKeyFile } from '../../server/state-paths.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import { createSubscriberKeys, decryptPushBody, type FakePushService } from '../support/fake-push-service.ts';
import { allStarted, borrowChromium, type TestBrowser } from '../support/browser.ts';
import { deliverPush, shownNotifications } from '../support/worker.ts';
import {
  createDashboardProject,
  DASHBOARD_SHOTS as SHOTS,
  openDashboard,
  SETUP_TIMEOUT_MS,
  signIn,
  siteConfig,
  type DashboardProject,
} from '../support/dashboard-serve.ts';

const HASH = 'letters-compose-01';
const SUBSCRIBERS = 3;
/** The test device's endpoint on the fake push service: the page's push subscription (docs/testing.md's page seam). */
const DEVICE_PATH = '/push/test-device';
/** axe-core, run inside the page (page.evaluate is not bound by the dashboard's script-src 'self'). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let project: DashboardProject;
let providerUrl: string;
let pushService: FakePushService;
let browser: TestBrowser;
let page: Page;
let key: string;
const subscriberKeys = createSubscriberKeys();
const deviceKeys = createSubscriberKeys();

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

beforeAll(async () => {
  project = await createDashboardProject('dashboard-compose');
  ({ pushService } = project);
  const vapid = generateVapidKeyPair();
  await writeVapidKeyFile(vapidKeyFile(project.stateDir, 'letters'), vapid);
  // Chromium starts while the database is seeded and the provider starts
  await allStarted([
    borrowChromium([], { viewport: { width: 1280, height: 900 } }).then((started) => (browser = started)),
    (async () => {
      const db = await openDatabase({ dataDir: join(project.stateDir, 'db') });
      try {
        key = (await ensureOwnerKey(db, { hash: HASH }))!;
        await db.query(
          `INSERT INTO subscribers (id, site_hash, status, endpoint, p256dh, auth, browser_type, language, created_at, last_sync_at)
           SELECT 'sub-' || i, $1, 'subscribed', $2 || '/push/sub-' || i, $3, $4, 'chrome', 'en-US', now(), now()
             FROM generate_series(1, $5::int) AS i`,
          [HASH, pushService.origin, subscriberKeys.p256dh, subscriberKeys.auth, SUBSCRIBERS],
        );
      } finally {
        await db.close();
      }
      providerUrl = await project.serve((url) => ({
        letters: siteConfig(url, HASH, 'Letters', 'https://letters.example', vapid.publicKey),
      }));
    })(),
  ]);
  await browser.context.grantPermissions(['notifications'], { origin: providerUrl });
  page = await browser.context.newPage();
  // The page seam of docs/testing.md: offline, Chromium's own subscribe never settles, so the dashboard's subscription
  // is one whose keys the test holds, on the fake push service; the worker and its registration are real.
  await page.addInitScript(
    ({ endpoint, p256dh, auth }) => {
      let made = false;
      const subscription = {
        endpoint,
        expirationTime: null,
        options: { userVisibleOnly: true, applicationServerKey: null },
        toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }),
        unsubscribe: async () => true,
      };
      PushManager.prototype.subscribe = async function () {
        made = true;
        return subscription as unknown as PushSubscription;
      };
      PushManager.prototype.getSubscription = async function () {
        return made ? (subscription as unknown as PushSubscription) : null;
      };
    },
    { endpoint: `${pushService.origin}${DEVICE_PATH}`, p256dh: deviceKeys.p256dh, auth: deviceKeys.auth },
  );
  await openDashboard(page, providerUrl);
  await signIn(page, key);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await project?.close();
});

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
const draftStatus = () => page.locator('[data-draft-status]').textContent();
const drafts = () =>
  owner<{ drafts: { draftId: string; kind: string; name: string; content: Record<string, unknown> }[] }>('GET', '/drafts');
const openCompose = async () => {
  await page.getByRole('link', { name: 'Send a notification' }).click();
  await page.getByRole('heading', { name: 'Send a notification' }).waitFor();
};

describe('compose: drafts, templates, duplicate', () => {
  it('keeps a half-written message on the provider: across screens and a reload, listed, deleted once sent', async () => {
    await openCompose();
    await page.getByLabel('Title', { exact: true }).fill('Autumn letters');
    await page.getByLabel('Message', { exact: true }).fill('Nine new pieces, half written');
    await expect.poll(draftStatus).toMatch(/^Draft saved at /);
    const [saved] = (await drafts()).drafts;
    expect(saved).toMatchObject({
      kind: 'draft',
      name: 'Autumn letters',
      content: { title: 'Autumn letters', body: 'Nine new pieces, half written' },
    });
    expect(page.url()).toMatch(new RegExp(`#/compose/draft/${saved!.draftId}$`));

    // another screen and back: the message is still there
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await openCompose();
    await expect.poll(() => page.getByLabel('Title', { exact: true }).inputValue()).toBe('Autumn letters');
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('Nine new pieces, half written');

    // typed on, then reloaded: the last words are kept too
    await page.getByLabel('Message', { exact: true }).fill('Nine new pieces from the autumn workshop.');
    await expect.poll(async () => (await drafts()).drafts[0]?.content.body).toBe('Nine new pieces from the autumn workshop.');
    await page.reload();
    await expect.poll(() => page.getByLabel('Message', { exact: true }).inputValue()).toBe('Nine new pieces from the autumn workshop.');
    expect(await page.getByRole('list', { name: 'Drafts' }).locator(`[data-draft-id="${saved!.draftId}"]`).textContent()).toContain(
      'Autumn letters',
    );
    await shot('compose-draft');

    // deleted meanwhile (from another tab): what is typed next is kept as a new draft, not lost
    await owner('DELETE', `/drafts/${saved!.draftId}`);
    await page.getByLabel('Message', { exact: true }).fill('Nine new pieces from the autumn workshop, in ink.');
    await expect
      .poll(async () => (await drafts()).drafts.map((entry) => [entry.draftId === saved!.draftId, entry.content.body]))
      .toEqual([[false, 'Nine new pieces from the autumn workshop, in ink.']]);

    // sent: the draft is gone from the provider and from the list
    await page.getByRole('button', { name: 'Review and send' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('heading', { name: 'Sent' }).waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await drafts()).drafts.length).toBe(0);
    expect(page.url()).toMatch(/#\/compose$/);
  });

  it('saves a message as a template and starts a new one from it', async () => {
    await page.getByRole('button', { name: 'Write another notification' }).click();
    // The draft's save of what is typed is still under way when the template is saved, and ends after it (held here
    // until the template's message shows): it does not replace that message.
    const draftSave = (request: Request) =>
      /\/drafts(\/[^/]+)?$/.test(new URL(request.url()).pathname) &&
      (request.method() === 'PUT' || (request.method() === 'POST' && (request.postDataJSON() as { kind?: string }).kind === 'draft'));
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold = async (route: Route) => {
      if (draftSave(route.request())) await released;
      await route.continue();
    };
    await page.route('**/api/v1/sites/letters/drafts**', hold);
    try {
      const saving = page.waitForRequest(draftSave);
      await page.getByLabel('Title', { exact: true }).fill('Weekly letter');
      await page.getByLabel('Message', { exact: true }).fill('This week in the workshop.');
      await saving;
      await page.getByLabel('Template name').fill('Weekly');
      await page.getByRole('button', { name: 'Save as template' }).click();
      await expect.poll(draftStatus).toBe('Template “Weekly” saved.');
      release();
      // the draft saved and listed (the list is read after its save's status is set): the template's message stays
      await page.getByRole('button', { name: /^Delete draft / }).waitFor();
      expect(await draftStatus()).toBe('Template “Weekly” saved.');
    } finally {
      release();
      await page.unroute('**/api/v1/sites/letters/drafts**', hold);
    }
    const template = (await owner<{ drafts: { name: string; content: { title: string } }[] }>('GET', '/drafts?kind=template')).drafts;
    expect(template).toMatchObject([{ name: 'Weekly', content: { title: 'Weekly letter' } }]);

    // a new message, then the template: its texts fill the form, as a new draft
    await page.getByRole('button', { name: /^Delete draft / }).click();
    await page.getByRole('button', { name: /^Delete .* for good$/ }).click();
    await expect.poll(async () => (await drafts()).drafts.filter((entry) => entry.kind === 'draft').length).toBe(0);
    await page.getByLabel('Title', { exact: true }).fill('Something else');
    await page.getByRole('button', { name: 'Start from this template' }).click();
    await expect.poll(() => page.getByLabel('Title', { exact: true }).inputValue()).toBe('Weekly letter');
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('This week in the workshop.');
    await expect
      .poll(async () => (await drafts()).drafts.filter((entry) => entry.kind === 'draft').map((entry) => entry.name))
      .toEqual(['Weekly letter']);
  });

  it('duplicates a campaign from the address: #/compose/campaign/<id> opens its message, buttons, languages and variants', async () => {
    const { campaignId } = await owner<{ campaignId: string }>('POST', '/campaigns', {
      title: 'Spring letters',
      body: 'Twelve new pieces.',
      url: 'https://letters.example/spring',
      texts: { de: { title: 'Frühlingsbriefe', body: 'Zwölf neue Stücke.' } },
      actions: [{ action: 'read', title: 'Read now' }],
      variants: [{ title: 'Spring letters' }, { title: 'New: twelve spring letters' }],
      testFraction: 0.5,
      winnerAfterMinutes: 30,
    });
    await page.goto(`${providerUrl}/dashboard/#/compose/campaign/${campaignId}`);
    await expect.poll(() => page.getByLabel('Title', { exact: true }).inputValue()).toBe('Spring letters');
    expect(await page.getByLabel('Opens (URL)', { exact: true }).inputValue()).toBe('https://letters.example/spring');
    expect(await page.getByLabel('Button 1 label').inputValue()).toBe('Read now');
    expect(await page.getByLabel('de title').inputValue()).toBe('Frühlingsbriefe');
    expect(await page.getByLabel('Test variants of this notification').isChecked()).toBe(true);
    expect(await page.getByLabel('Variant B title').inputValue()).toBe('New: twelve spring letters');
    expect(await page.getByLabel('Pick the winner after (minutes)').inputValue()).toBe('30');
    // the copy is a draft of its own, the campaign untouched
    await expect
      .poll(async () => (await drafts()).drafts.some((entry) => entry.kind === 'draft' && entry.name === 'Spring letters'))
      .toBe(true);
  });
});

describe('compose: previews and a test send', () => {
  it('previews each platform with its own truncation and length hints, each variant and each language', async () => {
    const long = 'Ninety-eight characters of title: the spring workshop letters are in, with twelve new pieces now!!';
    expect(long.length).toBe(98);
    // variant A (the copy's) is previewed first: its title is the one shown
    await page.getByLabel('Variant A title').fill(long);
    const preview = page.getByRole('figure', { name: 'Preview of the notification' });
    const title = preview.locator('.preview-title');
    // Chrome on Windows: two lines, cut after 70 characters
    expect(await title.textContent()).toBe(`${long.slice(0, 69)}…`);
    await preview.getByLabel('Chrome on macOS').check();
    expect(await title.textContent()).toBe(`${long.slice(0, 39)}…`);
    expect(await title.evaluate((element) => element.getBoundingClientRect().height)).toBeLessThan(22);
    expect(await preview.locator('[data-cut="macos"]').textContent()).toBe('On Chrome on macOS: title cut after 40 characters.');
    expect(await preview.locator('.preview-hints').textContent()).toBe(
      'Title: 98 characters, cut after 70 on Chrome on Windows, 40 on Chrome on macOS, 30 on Chrome on Android, 54 on Firefox on Windows.',
    );
    // macOS shows no button row, only Options; Firefox none
    expect(await preview.locator('.preview-action').allTextContents()).toEqual(['Options']);
    await preview.getByLabel('Chrome on Android').check();
    expect(await title.textContent()).toBe(`${long.slice(0, 29)}…`);
    await preview.getByLabel('Firefox on Windows').check();
    expect(await preview.locator('.preview-action').count()).toBe(0);
    await shot('compose-preview-firefox');

    // each variant, and each language over it
    await page.getByLabel('Variant A title').fill('Spring letters');
    await preview.getByLabel('Chrome on Windows').check();
    await preview.getByLabel('Preview variant').selectOption({ label: 'Variant B' });
    expect(await title.textContent()).toBe('New: twelve spring letters');
    await page.getByLabel('Preview in').selectOption('de');
    expect(await title.textContent()).toBe('Frühlingsbriefe');
    await page.getByLabel('Preview in').selectOption({ label: 'the default texts' });
    expect(await title.textContent()).toBe('New: twelve spring letters');
    await shot('compose-preview');
  });

  it('previews an automated message the same way, with the site host', async () => {
    await page.getByRole('link', { name: 'Automations' }).click();
    const welcome = page.locator('section[data-kind="welcome"]');
    await welcome.waitFor();
    const preview = welcome.getByRole('figure', { name: 'Preview of the notification' });
    await welcome.getByLabel('Title', { exact: true }).fill('Welcome to the letters of the spring workshop and all the seasons after');
    await preview.getByLabel('Chrome on Android').check();
    expect(await preview.locator('.preview-title').textContent()).toBe('Welcome to the letters of the…');
    expect(await preview.locator('.preview-header').textContent()).toContain('letters.example');
    await openCompose();
  });

  it('sends a test to this browser only: subscribed on the dashboard scope, the notification shows, no subscriber or figure changes', async () => {
    const figures = async () => {
      const stats = await owner<{ total: number; byStatus: Record<string, number>; browsers: unknown }>('GET', '/stats?days=7');
      return { total: stats.total, byStatus: stats.byStatus, browsers: stats.browsers };
    };
    const before = await figures();
    expect(before.total).toBe(SUBSCRIBERS);
    const sentBefore = pushService.requests.length;
    await page.getByLabel('Preview variant').selectOption({ label: 'Variant B' });
    await page.getByLabel('Preview in').selectOption('de');
    await page.getByRole('button', { name: 'Send a test to this browser' }).click();
    await expect
      .poll(() => page.locator('[data-test-send]').textContent())
      .toBe('Test sent to this browser: “Frühlingsbriefe” (variant B in de).');

    // one push, to the test device alone, signed and encrypted as a campaign's
    expect(pushService.requests.slice(sentBefore).map((request) => request.path)).toEqual([DEVICE_PATH]);
    const payload = decryptPushBody(pushService.requests.at(-1)!.body, deviceKeys).toString('utf8');
    expect(JSON.parse(payload)).toMatchObject({
      web_push: 8030,
      notification: { title: 'Frühlingsbriefe', body: 'Zwölf neue Stücke.', tag: 'pushkit-test' },
    });

    // the dashboard's own worker, at its own scope on the provider's origin, shows it
    const scope = `${providerUrl}/dashboard/test-device/letters/`;
    await deliverPush(browser.context, page, providerUrl, scope, payload);
    await expect
      .poll(async () => (await shownNotifications(page, scope)).map((shown) => [shown.title, shown.body]))
      .toEqual([['Frühlingsbriefe', 'Zwölf neue Stücke.']]);
    expect(await page.evaluate(() => navigator.serviceWorker.controller)).toBeNull();

    // not a subscriber: the figures are as they were
    expect(await figures()).toEqual(before);
    const devices = await owner<{ devices: { label: string; pushService: string }[] }>('GET', '/test-devices');
    expect(devices.devices).toEqual([expect.objectContaining({ label: 'Chrome on Linux', pushService: pushService.origin })]);
  });
});

/** What is wrong with the page at a phone's width: sideways scroll, tap targets under 44 px. */
function phoneProblems(page: Page) {
  return page.evaluate(() => {
    const problems: string[] = [];
    const width = document.documentElement.scrollWidth;
    if (width > 390) problems.push(`the page is ${width} px wide`);
    const describe = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''} "${(element.textContent ?? '').trim().slice(0, 30) || element.getAttribute('aria-label') || ''}"`;
    const targets = document.querySelectorAll(
      'button, select, textarea, input:not([type="radio"], [type="checkbox"], [type="hidden"], [type="file"]), nav a, td a, .screen > p > a:only-child, summary, label.radio',
    );
    for (const element of Array.from(targets)) {
      const box = element.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) continue; // not shown (visually hidden)
      if (box.height < 44 || box.width < 44) problems.push(`${describe(element)} is ${Math.round(box.width)}×${Math.round(box.height)} px`);
      if (box.right > 390.5) problems.push(`${describe(element)} ends at ${Math.round(box.right)} px`);
    }
    // a chart's axis labels side by side, none over another
    for (const axis of Array.from(document.querySelectorAll('.recharts-xAxis-tick-labels'))) {
      const boxes = Array.from(axis.querySelectorAll('text'))
        .map((text) => ({ text: text.textContent, box: text.getBoundingClientRect() }))
        .filter(({ box }) => box.width > 0)
        .sort((a, b) => a.box.left - b.box.left);
      for (let index = 1; index < boxes.length; index += 1) {
        if (boxes[index]!.box.left < boxes[index - 1]!.box.right - 0.5)
          problems.push(`chart labels "${boxes[index - 1]!.text}" and "${boxes[index]!.text}" overlap`);
      }
    }
    return problems;
  });
}

/** axe-core's serious and critical WCAG 2 A/AA violations of the page, by rule and target. */
async function accessibilityProblems(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    interface AxeViolation {
      id: string;
      impact: string | null;
      nodes: { target: unknown[] }[];
    }
    const { violations } = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] },
      resultTypes: ['violations'],
    });
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
  });
}

describe('phone layout', () => {
  it('every screen at 1280 and 390 px: no sideways scroll, 44 px tap targets, tables as cards, preview above Send, no axe violations at 390', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${providerUrl}/dashboard/#/overview`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const screens = (await page
      .getByRole('navigation', { name: 'Screens' })
      .getByRole('link')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')!.slice(2)))) as string[];
    expect(screens.length).toBeGreaterThan(9);
    // a campaign page with figures and a subscriber's page beside the screens of the tabs
    const { campaignId } = await owner<{ campaignId: string }>('POST', '/campaigns', { title: 'Phone check', body: 'On a 390 px screen.' });
    // and the overview's last campaigns, long names side by side under their bars
    for (const season of ['Winter', 'Spring', 'Summer', 'Autumn'])
      await owner('POST', '/campaigns', { title: `${season} workshop letters`, body: 'Twelve new pieces.' });
    await expect
      .poll(
        async () =>
          (await owner<{ campaigns: { title: string; pending: number }[] }>('GET', '/campaigns?limit=8')).campaigns
            .filter((campaign) => campaign.title.endsWith('workshop letters'))
            .every((campaign) => campaign.pending === 0),
        // four sends to every subscriber: on a machine at load 30 more than the default 10 s
        { timeout: 60_000 },
      )
      .toBe(true);
    const pages = [...screens, `campaigns/${campaignId}`, 'subscribers/sub-1'];
    // a screen is looked at once the owner API calls it made have all answered
    const calls = new Set<Request>();
    page.on('request', (request) => void (request.url().includes('/api/v1/') && calls.add(request)));
    page.on('requestfinished', (request) => void calls.delete(request));
    page.on('requestfailed', (request) => void calls.delete(request));
    const settled = async () => {
      await expect.poll(() => calls.size).toBe(0);
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      await expect.poll(() => calls.size).toBe(0);
    };
    const problems: Record<string, string[]> = {};
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      for (const screen of pages) {
        await page.goto(`${providerUrl}/dashboard/#/${screen}`);
        await page.locator('main :is(h1, h2)').first().waitFor();
        await settled();
        await page.screenshot({ path: join(SHOTS, `screen-${screen.replace(/\//g, '-')}-${width}.png`), fullPage: width === 390 });
        // each screen is named by one h1
        const h1 = await page.locator('main h1').count();
        const found = [
          ...(h1 === 1 ? [] : [`${h1} h1`]),
          ...(width === 390 ? [...(await phoneProblems(page)), ...(await accessibilityProblems(page))] : []),
        ];
        if (found.length) problems[`${screen} at ${width} px`] = found;
      }
    }
    expect(problems).toEqual({});

    // tables are cards: each cell names its column; on compose the preview comes before the Send button
    await page.goto(`${providerUrl}/dashboard/#/subscribers`);
    const cell = page.locator('main tbody td[data-label]').first();
    await cell.waitFor();
    expect(await cell.evaluate((element) => getComputedStyle(element, '::before').content)).toMatch(/^".+"$/);
    await page.goto(`${providerUrl}/dashboard/#/compose`);
    const previewBox = await page.getByRole('figure', { name: 'Preview of the notification' }).boundingBox();
    const sendBox = await page.getByRole('button', { name: 'Review and send' }).boundingBox();
    expect(previewBox!.y + previewBox!.height).toBeLessThan(sendBox!.y);
    await page.setViewportSize({ width: 1280, height: 900 });
    // every screen loaded twice with its screenshot (and at 390 px an axe run): ~30 s quiet, past 60 s at load 15
  }, 180_000);
});
