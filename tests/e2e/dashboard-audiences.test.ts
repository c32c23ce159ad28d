// Issue 31's audience and clock findings in Chromium against `push-kit serve` (spawned, embedded database seeded
// with subscribers of mixed languages, time zones, tags and statuses on the fake HTTPS push service):
// - finding 4: an audience over stored data (tag.plan == "pro", language) is checked as it is typed with the
//   variables listed, counted live, created and sent to at once; only its subscribers receive it;
// - finding 2: the segment list and the compose estimate and confirmation give the same number, and the list
//   says why its members are more;
// - finding 5: the owner's display zone (picked in the header, kept across a reload) is what a typed send time is
//   read in and what the confirmation states with UTC, whatever the machine's zone (the browser runs in New
//   York); times carry UTC on hover, and the preview of a scheduled send does not say "now".
// Screenshots go to tests/artifacts/dashboard/.
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.ts';
import { ensureOwnerKey } from '../../server/http/owner-keys.ts';
import { vapidKeyFile } from '../../server/state-paths.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import type { Campaign } from '../../contract/owner-api.ts';
import { createSubscriberKeys, type FakePushService } from '../support/fake-push-service.ts';
import { allStarted, CHROMIUM_PATH, OFFLINE_FLAGS } from '../support/browser.ts';
import {
  createDashboardProject,
  DASHBOARD_SHOTS as SHOTS,
  openDashboard,
  SETUP_TIMEOUT_MS,
  signIn,
  siteConfig,
  type DashboardProject,
} from '../support/dashboard-serve.ts';

const HASH = 'letters-audiences-01';
const SUBSCRIBERS = 120;

let project: DashboardProject;
let work: string;
let providerUrl: string;
let pushService: FakePushService;
let browser: Browser;
let page: Page;
let key: string;
/** From the database as seeded: the figures each screen must show. */
const seeded = { proMembers: 0, proPaths: [] as string[], germanMembers: 0, germanReachable: 0, vipMembers: 0, vipReachable: 0 };
const subscriberKeys = createSubscriberKeys();
/** A subscription a push service reported gone at 02:00 UTC ten days ago: the evening before in New York. */
const expiredAt = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 10 * 86_400_000 + 2 * 3_600_000);

async function owner<T>(path: string): Promise<T> {
  const response = await fetch(`${providerUrl}/api/v1/sites/letters${path}`, { headers: { authorization: `Bearer ${key}` } });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function seed(): Promise<void> {
  const db = await openDatabase({ dataDir: join(work, '.push-kit/db') });
  try {
    key = (await ensureOwnerKey(db, { hash: HASH }))!;
    // every 6th unsubscribed, every 15th expired; languages de-DE / en-US / fr-FR in turn; every 4th on plan pro
    await db.query(
      `INSERT INTO subscribers (id, site_hash, status, endpoint, p256dh, auth, browser_type, language, timezone, created_at, last_sync_at)
       SELECT 'sub-' || lpad(i::text, 4, '0'), $1,
              CASE WHEN i % 6 = 0 THEN 'unsubscribed' WHEN i % 15 = 0 THEN 'expired' ELSE 'subscribed' END,
              CASE WHEN i % 6 = 0 THEN NULL ELSE $2 || '/push/sub-' || lpad(i::text, 4, '0') END, $3, $4, 'chrome',
              (ARRAY['de-DE', 'en-US', 'fr-FR'])[i % 3 + 1], (ARRAY['Europe/Berlin', 'America/New_York', 'Europe/Paris'])[i % 3 + 1],
              now() - (i % 20) * interval '1 day', now()
         FROM generate_series(1, $5::int) AS i`,
      [HASH, pushService.origin, subscriberKeys.p256dh, subscriberKeys.auth, SUBSCRIBERS],
    );
    await db.query(
      `INSERT INTO subscriber_tags (subscriber_id, key, value) SELECT id, 'plan', 'pro' FROM subscribers WHERE right(id, 4)::int % 4 = 0`,
    );
    await db.query(`INSERT INTO events (site_hash, subscriber_id, kind, created_at) VALUES ($1, 'sub-0015', 'expired', $2)`, [
      HASH,
      expiredAt,
    ]);
    await db.query(`INSERT INTO segments (site_hash, sid, name) VALUES ($1, 'vip', 'Very important readers')`, [HASH]);
    await db.query(
      `INSERT INTO segment_memberships (segment_id, subscriber_id, source)
       SELECT g.id, s.id, 'test' FROM segments g, subscribers s WHERE g.sid = 'vip' AND right(s.id, 4)::int % 5 = 0`,
    );
    const count = async (where: string) =>
      Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM subscribers s WHERE ${where}`)).rows[0]!.n);
    const reachable = `s.status = 'subscribed' AND s.endpoint IS NOT NULL`;
    const pro = `EXISTS (SELECT 1 FROM subscriber_tags t WHERE t.subscriber_id = s.id AND t.key = 'plan' AND t.value = 'pro')`;
    const vip = `EXISTS (SELECT 1 FROM segment_memberships m WHERE m.subscriber_id = s.id)`;
    seeded.proMembers = await count(pro);
    seeded.proPaths = (
      await db.query<{ id: string }>(`SELECT s.id FROM subscribers s WHERE ${pro} AND ${reachable} ORDER BY s.id`)
    ).rows.map((row) => `/push/${row.id}`);
    seeded.germanMembers = await count(`s.language = 'de-DE'`);
    seeded.germanReachable = await count(`s.language = 'de-DE' AND ${reachable}`);
    seeded.vipMembers = await count(vip);
    seeded.vipReachable = await count(`${vip} AND ${reachable}`);
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  project = await createDashboardProject('dashboard-audiences');
  ({ work, pushService } = project);
  const vapid = generateVapidKeyPair();
  await writeVapidKeyFile(vapidKeyFile(project.stateDir, 'letters'), vapid);
  // Chromium starts while the database is seeded and the provider starts. The machine's clock is New York's; the
  // owner works on Berlin's. No push here: an ordinary context will do.
  await allStarted([
    chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: OFFLINE_FLAGS }).then((started) => (browser = started)),
    (async () => {
      await seed();
      providerUrl = await project.serve((url) => ({
        letters: siteConfig(url, HASH, 'Letters', 'https://letters.example', vapid.publicKey),
      }));
    })(),
  ]);
  const context = await browser.newContext({ timezoneId: 'America/New_York', viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  await openDashboard(page, providerUrl);
  await signIn(page, key);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await project?.close();
});

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
const compose = async (title: string) => {
  // a new message, not the draft this tab kept from an earlier test (compose reopens it)
  await page.evaluate(() =>
    Object.keys(sessionStorage).forEach((key) => key.startsWith('pushkit-compose-draft:') && sessionStorage.removeItem(key)),
  );
  await page.getByRole('link', { name: 'Send a notification' }).click();
  await page.getByRole('heading', { name: 'Send a notification' }).waitFor();
  await page.getByLabel('Title', { exact: true }).fill(title);
  await page.getByLabel('Message', { exact: true }).fill('For the readers it is meant for');
};

describe('audiences from stored data (issue 31, finding 4)', () => {
  it('checks a rule as it is typed with the variables listed, counts it live, and sends to it at once', async () => {
    await page.getByRole('link', { name: 'Segments' }).click();
    await page.getByRole('heading', { name: 'Audiences (from stored data, usable now)' }).waitFor();
    await page.getByRole('heading', { name: "Browser segments (from the site config, evaluated on the visitor's page)" }).waitFor();

    const rule = page.getByLabel('Rule', { exact: true });
    const status = page.locator('#audience-rule-status');
    await rule.fill('url == "/pricing"');
    await expect.poll(() => status.locator('[data-position]').textContent()).toBe('unknown variable "url" at column 1');
    await page.getByText('What a rule can read').click();
    for (const name of ['language', 'country', 'tag.NAME', 'subscribedDaysAgo', 'lastSeenDaysAgo', 'clicked.NAME']) {
      await page.locator('details.variables code', { hasText: name }).first().waitFor();
    }

    await rule.fill('language == "de-DE"');
    await expect.poll(() => status.locator('[data-members]').getAttribute('data-members')).toBe(String(seeded.germanMembers));
    expect(await status.locator('[data-reachable]').getAttribute('data-reachable')).toBe(String(seeded.germanReachable));

    await rule.fill('tag.plan == "pro"');
    await expect.poll(() => status.locator('[data-members]').getAttribute('data-members')).toBe(String(seeded.proMembers));
    expect(await status.textContent()).toBe(
      `Valid: ${seeded.proMembers} members, ${seeded.proPaths.length} can receive: ${seeded.proMembers - seeded.proPaths.length} unsubscribed, blocked or expired.`,
    );
    await page.getByLabel('Audience id').fill('pro-plan');
    await page.locator('#audience-name').fill('Plan pro');
    await page.getByRole('button', { name: 'Create audience' }).click();
    const row = page.locator('[data-audience="pro-plan"]');
    await expect.poll(() => row.locator('[data-reachable]').getAttribute('data-reachable')).toBe(String(seeded.proPaths.length));
    await shot('segments-audiences');

    await compose('For our pro readers');
    await page.getByLabel('An audience (from stored data)').check();
    await page.getByLabel('Audience', { exact: true }).selectOption('pro-plan');
    await expect.poll(() => page.locator('[data-estimate]').getAttribute('data-estimate')).toBe(String(seeded.proPaths.length));
    await page.getByRole('button', { name: 'Review and send' }).click();
    const dialog = page.getByRole('alertdialog');
    expect(await dialog.locator('[data-recipients]').getAttribute('data-recipients')).toBe(String(seeded.proPaths.length));
    expect(await dialog.textContent()).toContain('(the audience pro-plan)');
    await dialog.getByRole('button', { name: 'Send now' }).click();
    await expect.poll(() => pushService.requests.length, { timeout: 30_000 }).toBe(seeded.proPaths.length);
    expect(pushService.requests.map((push) => push.path).sort()).toEqual(seeded.proPaths);
  });
});

describe('counts that agree (issue 31, finding 2)', () => {
  it('the segment list, the compose estimate and the confirmation give one number, and the list says why members are more', async () => {
    await page.getByRole('link', { name: 'Segments' }).click();
    const row = page.locator('[data-sid="vip"]');
    await expect.poll(() => row.locator('[data-reachable]').getAttribute('data-reachable')).toBe(String(seeded.vipReachable));
    const others = seeded.vipMembers - seeded.vipReachable;
    expect(others).toBeGreaterThan(0);
    expect(await row.textContent()).toContain(
      `${seeded.vipMembers} members, ${seeded.vipReachable} can receive: ${others} unsubscribed, blocked or expired`,
    );

    await compose('For the very important');
    await page.getByLabel('A segment').check();
    await page.getByLabel('Segment', { exact: true }).selectOption('vip');
    const estimate = page.locator('#audience-estimate');
    await expect.poll(() => estimate.locator('[data-estimate]').getAttribute('data-estimate')).toBe(String(seeded.vipReachable));
    expect(await estimate.textContent()).toContain(`${seeded.vipMembers} members, ${seeded.vipReachable} can receive`);
    await page.getByRole('button', { name: 'Review and send' }).click();
    const dialog = page.getByRole('alertdialog');
    expect(await dialog.locator('[data-recipients]').getAttribute('data-recipients')).toBe(String(seeded.vipReachable));
    await dialog.getByRole('button', { name: 'Back to editing' }).click();
  });
});

describe("the owner's clock (issue 31, finding 5)", () => {
  it('reads 09:30 "your clock" in the chosen zone, states it with UTC, keeps the zone, and shows times with UTC on hover', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // "Expired per day" too counts days in the owner's zone, here the browser's (New York): the dashboard sends it
    const newYorkDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(expiredAt);
    expect(newYorkDay).not.toBe(expiredAt.toISOString().slice(0, 10));
    const expiredPerDay = page.getByRole('list', { name: 'Expired per day' }).getByRole('listitem');
    await expect.poll(() => expiredPerDay.allTextContents()).toEqual([`${newYorkDay}1`]);
    const zone = page.getByLabel('Display time zone');
    // the overview counts days on the owner's clock: in a zone whose date is not UTC's now, the charts end on its today
    const far = new Date().getUTCHours() >= 11 ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago';
    await zone.selectOption(far);
    const farToday = new Intl.DateTimeFormat('en-CA', { timeZone: far }).format(Date.now());
    expect(farToday).not.toBe(new Date().toISOString().slice(0, 10));
    await expect.poll(() => page.locator('figure[data-chart="subscribers"]').getAttribute('aria-label')).toContain(` to ${farToday}:`);
    await zone.selectOption('Europe/Berlin');
    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.getByLabel('Display time zone').inputValue()).toBe('Europe/Berlin');

    await compose('Winter letters');
    await page.getByLabel('At a date and time').check();
    await page.getByLabel('Date and time (your clock)').fill('2027-01-15T09:30');
    expect(await page.locator('#sendAt-hint').textContent()).toContain('Europe/Berlin');
    // the preview of a scheduled send says when, not "now"
    await expect.poll(() => page.locator('.preview-column').textContent()).toContain('09:30 GMT+1');
    expect(await page.locator('.preview-column').textContent()).not.toContain('now');
    await page.getByRole('button', { name: 'Review and send' }).click();
    const dialog = page.getByRole('alertdialog');
    expect(await dialog.locator('.send-time').textContent()).toBe(
      'It goes at 2027-01-15 09:30 GMT+1 on your clock (Europe/Berlin), 2027-01-15 08:30 UTC.',
    );
    expect(await dialog.locator('time').getAttribute('datetime')).toBe('2027-01-15T08:30:00.000Z');
    await shot('compose-send-time');
    await dialog.getByRole('button', { name: 'Schedule' }).click();
    const sendAtOf = async () => {
      const { campaigns } = await owner<{ campaigns: Campaign[] }>('/campaigns?limit=5');
      return campaigns.find((campaign) => campaign.title === 'Winter letters')?.sendAt;
    };
    await expect.poll(sendAtOf).toBe('2027-01-15T08:30:00.000Z');

    // every time on screen is on the owner's clock, with UTC on hover
    await page.getByRole('link', { name: 'Subscribers' }).click();
    const created = page.locator('table time').first();
    await created.waitFor();
    const [text, title, datetime] = [
      await created.textContent(),
      await created.getAttribute('title'),
      await created.getAttribute('datetime'),
    ];
    const instant = new Date(datetime!);
    const berlin = new Date(instant.getTime() + 60 * 60 * 1000).toISOString();
    expect(text).toBe(`${berlin.slice(0, 10)} ${berlin.slice(11, 16)} GMT+1`);
    expect(title).toBe(`${instant.toISOString().slice(0, 10)} ${instant.toISOString().slice(11, 16)} UTC`);
  });
});
