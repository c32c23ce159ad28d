// The owner dashboard in Chromium against `push-kit serve` (spawned, embedded database seeded with a few
// hundred subscribers whose endpoints are on the fake HTTPS push service): sign in, segments with a bad then
// a good condition, a subscriber added to and removed from a segment by id, send to a segment (the push
// service receives exactly that segment's messages), filter by segment, find a subscriber, change their
// segments, export and delete them. Screenshots of each screen go to tests/artifacts/dashboard/.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.ts';
import { ensureOwnerKey } from '../../server/http/owner-keys.ts';
import { legacyVapidKeyDir, vapidKeyFile } from '../../server/state-paths.ts';
import { vapidKeyId } from '../../server/keys/index.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import { createSubscriberKeys, decryptPushBody, type FakePushService } from '../support/fake-push-service.ts';
import { allStarted, borrowChromium, type TestBrowser } from '../support/browser.ts';
import {
  createDashboardProject,
  DASHBOARD_SHOTS as SHOTS,
  openDashboard,
  SETUP_TIMEOUT_MS,
  siteConfig,
  type DashboardProject,
} from '../support/dashboard-serve.ts';

const SUBSCRIBERS = 300;
const LETTERS_HASH = 'letters-dash-01';

let project: DashboardProject;
let work: string;
let providerUrl: string;
let pushService: FakePushService;
let browser: TestBrowser;
let page: Page;
let lettersKey: string;
let journalKey: string;
/** Active members of segment vip with an endpoint: whom a campaign to vip reaches. */
let vipPaths: string[];
let byStatus: Record<string, number>;
/** Active subscribers seeded on the letters site's legacy VAPID key (issue 29): the overview's "On a legacy key". */
let onLegacyKey: number;
/** A key pair letters subscribers were made with before a rotation or an import. */
const legacy = generateVapidKeyPair();
const subscriberKeys = createSubscriberKeys();

async function seed(): Promise<void> {
  const db = await openDatabase({ dataDir: join(work, '.push-kit/db') });
  try {
    lettersKey = (await ensureOwnerKey(db, { hash: LETTERS_HASH }))!;
    journalKey = (await ensureOwnerKey(db, { hash: 'journal-dash-01' }))!;
    await db.query(
      `INSERT INTO subscribers (id, site_hash, status, endpoint, p256dh, auth, browser_type, language, created_at, last_sync_at, vapid_key_id)
       SELECT 'sub-' || lpad(i::text, 4, '0'), $1,
              CASE WHEN i % 10 = 0 THEN 'unsubscribed' WHEN i % 25 = 1 THEN 'blocked' WHEN i % 45 = 2 THEN 'expired' ELSE 'subscribed' END,
              $2 || '/push/sub-' || lpad(i::text, 4, '0'), $3, $4,
              (ARRAY['chrome', 'firefox', 'edge'])[i % 3 + 1], CASE WHEN i % 4 = 0 THEN 'pt-BR' ELSE 'en-US' END,
              now() - (i % 28) * interval '1 day', now() - (i % 5) * interval '1 hour',
              CASE WHEN i % 3 = 2 THEN $6 END
         FROM generate_series(1, $5::int) AS i`,
      [LETTERS_HASH, pushService.origin, subscriberKeys.p256dh, subscriberKeys.auth, SUBSCRIBERS, vapidKeyId(legacy.publicKey)],
    );
    const legacyCount = await db.query<{ count: string }>(
      `SELECT count(*) AS count FROM subscribers WHERE status = 'subscribed' AND vapid_key_id IS NOT NULL`,
    );
    onLegacyKey = Number(legacyCount.rows[0]!.count);
    await db.query(`INSERT INTO segments (site_hash, sid, name) VALUES ($1, 'vip', 'Very important readers')`, [LETTERS_HASH]);
    await db.query(
      `INSERT INTO segment_memberships (segment_id, subscriber_id, source)
       SELECT g.id, s.id, 'test' FROM segments g, subscribers s
        WHERE g.site_hash = $1 AND g.sid = 'vip' AND s.site_hash = $1 AND right(s.id, 4)::int % 7 = 0`,
      [LETTERS_HASH],
    );
    await db.query(`INSERT INTO subscriber_tags (subscriber_id, key, value) VALUES ('sub-0042', 'plan', 'pro')`);
    // three visitors refused the permission (push-kit's block sync action), one of them 40 days ago
    await db.query(
      `INSERT INTO events (site_hash, kind, detail, created_at) VALUES
         ($1, 'block', '{"uuid":"v-1"}', now()), ($1, 'block', '{"uuid":"v-2"}', now()),
         ($1, 'block', '{"uuid":"v-3"}', now() - interval '40 days')`,
      [LETTERS_HASH],
    );
    const vip = await db.query<{ id: string }>(
      `SELECT s.id FROM subscribers s JOIN segment_memberships m ON m.subscriber_id = s.id
        WHERE s.status = 'subscribed' AND s.endpoint IS NOT NULL ORDER BY s.id`,
    );
    vipPaths = vip.rows.map((row) => `/push/${row.id}`);
    const statuses = await db.query<{ status: string; count: string }>('SELECT status, count(*) AS count FROM subscribers GROUP BY status');
    byStatus = Object.fromEntries(statuses.rows.map((row) => [row.status, Number(row.count)]));
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  project = await createDashboardProject('dashboard');
  ({ work, pushService } = project);
  const letters = generateVapidKeyPair();
  const journal = generateVapidKeyPair();
  await writeVapidKeyFile(vapidKeyFile(project.stateDir, 'letters'), letters);
  await writeVapidKeyFile(vapidKeyFile(project.stateDir, 'journal'), journal);
  await writeVapidKeyFile(join(legacyVapidKeyDir(project.stateDir, 'letters'), `${vapidKeyId(legacy.publicKey)}.json`), legacy);
  // Chromium starts while the database is seeded and the provider starts
  await allStarted([
    borrowChromium([], { viewport: { width: 1280, height: 900 } }).then((started) => (browser = started)),
    (async () => {
      await seed();
      providerUrl = await project.serve((url) => ({
        letters: siteConfig(url, LETTERS_HASH, 'Letters', 'https://letters.example', letters.publicKey),
        journal: siteConfig(url, 'journal-dash-01', 'Journal', 'https://journal.example', journal.publicKey),
      }));
    })(),
  ]);
  expect(project.output()).toContain(`owner dashboard: ${providerUrl}/dashboard/`);
  page = await browser.context.newPage();
  // the first visit may wait for the on-demand build
  await openDashboard(page, providerUrl);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await project?.close();
});

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

describe('owner dashboard', () => {
  it('refuses a wrong key, signs in with the right one (kept in sessionStorage, never in the URL) and switches sites', async () => {
    await page.getByLabel('Owner key').fill('pk_not_the_key_of_anything_here');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('This key is not the owner key of any site on this server.');
    await shot('sign-in-refused');

    await page.getByLabel('Owner key').fill(lettersKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect.poll(() => page.locator('[data-status="subscribed"]').textContent()).toBe(String(byStatus.subscribed));
    expect(await page.locator('[data-status="unsubscribed"]').textContent()).toBe(String(byStatus.unsubscribed));
    expect(await page.locator('[data-status="blocked"]').textContent()).toBe(String(byStatus.blocked));
    expect(await page.locator('[data-status="expired"]').textContent()).toBe(String(byStatus.expired));
    expect(await page.locator('[data-status="blocks"]').textContent()).toBe('2');
    const chart = page.locator('figure[data-chart="subscribers"]');
    expect(await chart.getAttribute('aria-label')).toContain(`${SUBSCRIBERS} new`);
    // readable axes: each axis counts in distinct whole numbers from 0, and the x axis names days
    const axes = chart.locator('.recharts-yAxis-tick-labels');
    await axes.first().locator('.recharts-cartesian-axis-tick-value').first().waitFor();
    expect(await axes.count()).toBe(2);
    for (let index = 0; index < 2; index += 1) {
      const ticks = await axes.nth(index).locator('.recharts-cartesian-axis-tick-value').allTextContents();
      expect(ticks.length).toBeGreaterThan(1);
      expect(new Set(ticks).size).toBe(ticks.length);
      for (const tick of ticks) expect(tick).toMatch(/^\d{1,3}(,\d{3})*$/);
      expect(ticks[0]).toBe('0');
    }
    expect((await chart.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').first().textContent()) ?? '').toMatch(
      /^[A-Z][a-z]{2} \d{1,2}$/,
    );
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(/^data:image\/svg\+xml,/);
    expect(page.url()).not.toContain(lettersKey);
    expect(await page.evaluate(() => sessionStorage.getItem('pushkit-dashboard'))).toContain(lettersKey);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    await shot('overview');

    await page.getByRole('button', { name: 'Sign in to another site' }).click();
    await page.getByLabel('Owner key').fill(journalKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const switcher = page.getByLabel('Site');
    await expect.poll(() => switcher.inputValue()).toBe('journal');
    await expect.poll(() => page.locator('[data-status="all"]').textContent()).toBe('0');
    await switcher.selectOption('letters');
    await expect.poll(() => page.locator('[data-status="all"]').textContent()).toBe(String(SUBSCRIBERS));
  });

  it('creates a segment: a bad condition shows the error and its column, a good one is created', async () => {
    await page.getByRole('link', { name: 'Segments' }).click();
    await page.getByRole('heading', { name: 'Create a segment' }).waitFor();
    const vipRow = page.locator('tr[data-sid="vip"]');
    expect(await vipRow.locator('[data-members]').getAttribute('data-members')).toBe(String(Math.floor(SUBSCRIBERS / 7)));

    await page.getByLabel('Segment id').fill('blog-readers');
    await page.getByLabel('Condition').fill('path == "/a" and');
    const status = page.locator('#condition-status');
    await expect.poll(() => status.locator('[data-position]').textContent()).toBe('expected a value after "and" at column 17');
    expect(await page.getByRole('button', { name: 'Create segment' }).isDisabled()).toBe(true);
    await shot('segments-bad-condition');

    await page.getByLabel('Condition').fill('path startsWith "/blog" and visitCount > 2');
    await expect.poll(() => status.textContent()).toBe('The condition is valid.');
    await page.getByRole('button', { name: 'Create segment' }).click();
    await expect.poll(() => page.getByText('Segment blog-readers created.').count()).toBe(1);
    const created = page.locator('tr[data-sid="blog-readers"]');
    await created.waitFor();
    expect(await created.locator('code').textContent()).toBe('path startsWith "/blog" and visitCount > 2');
    expect(await created.locator('[data-members]').getAttribute('data-members')).toBe('0');

    await page.getByLabel('Segment', { exact: true }).selectOption('blog-readers');
    await page.getByLabel('Subscriber id').fill('sub-0003');
    await page.getByRole('button', { name: 'Add to segment' }).click();
    await expect.poll(() => page.getByText('sub-0003 added to blog-readers.').count()).toBe(1);
    await expect.poll(() => created.locator('[data-members]').getAttribute('data-members')).toBe('1');
    await shot('segments');

    await page.getByRole('button', { name: 'Remove from segment' }).click();
    await expect.poll(() => page.getByText('sub-0003 removed from blog-readers.').count()).toBe(1);
    await expect.poll(() => created.locator('[data-members]').getAttribute('data-members')).toBe('0');
    await page.getByRole('button', { name: 'Remove from segment' }).click();
    await expect.poll(() => page.getByText('id: subscriber sub-0003 is not in segment blog-readers').count()).toBe(1);
  });

  it('sends to a segment: confirmation with the audience size, progress, results; the push service gets exactly that segment', async () => {
    await page.getByRole('link', { name: 'Send a notification' }).click();
    await page.getByLabel('Title').fill('Spring letters are in');
    await page.getByLabel('Message').fill('Twelve new pieces from the spring workshop.');
    await page.getByLabel('Opens (URL)').fill('https://letters.example/spring');
    await page.getByRole('button', { name: 'Add a button' }).click();
    await page.getByLabel('Button 1 label').fill('Read now');
    await page.getByLabel('Urgency').selectOption('high');
    await page.getByLabel('A segment').check();
    await page.getByLabel('Segment', { exact: true }).selectOption('vip');
    expect(await page.locator('.preview-title').textContent()).toBe('Spring letters are in');
    expect(await page.locator('.preview-action').textContent()).toBe('Read now');
    await shot('compose');

    // one of them is refused as Apple refuses a bad VAPID subject: the results say why, with the fix's page
    pushService.answer('/push/sub-0042', { status: 403, body: '{"reason":"BadJwtToken"}' });
    await page.getByRole('button', { name: 'Review and send' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.waitFor();
    expect(await confirm.locator('[data-recipients]').getAttribute('data-recipients')).toBe(String(vipPaths.length));
    await shot('compose-confirm');
    await confirm.getByRole('button', { name: 'Send now' }).click();

    await page.getByRole('heading', { name: 'Sent' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-result="delivered"]').textContent()).toBe(String(vipPaths.length - 1));
    expect(await page.locator('[data-result="failed"]').textContent()).toBe('1');
    const why = page.locator('[data-failure="403 BadJwtToken from 127.0.0.1"]');
    expect(await why.textContent()).toBe('403 BadJwtToken from 127.0.0.1: 1 — how to fix it');
    // the fix's page is the provider's own (no website to be online for), opened at the reason's section
    const help = why.getByRole('link');
    expect(await help.getAttribute('href')).toBe('/dashboard/help/delivery-failures#vapid-subject-badjwttoken');
    const guide = await page.context().newPage();
    await guide.goto(new URL((await help.getAttribute('href'))!, page.url()).href);
    await guide.locator('h2#vapid-subject-badjwttoken', { hasText: 'VAPID subject: BadJwtToken' }).waitFor();
    await guide.close();
    await shot('compose-results');

    expect(pushService.requests.map((request) => request.path).sort()).toEqual(vipPaths);
    const payload = JSON.parse(decryptPushBody(pushService.requests[0]!.body, subscriberKeys).toString('utf8'));
    expect(payload).toMatchObject({
      web_push: 8030,
      notification: {
        title: 'Spring letters are in',
        body: 'Twelve new pieces from the spring workshop.',
        navigate: expect.stringMatching(
          /^https:\/\/letters\.example\/spring\?utm_source=push-kit&utm_medium=push&utm_campaign=\d+(&pushkit_click=\d+\.[\w-]{22})?$/,
        ),
        actions: [{ action: 'button1', title: 'Read now' }],
      },
    });
    expect(pushService.requests[0]!.headers.urgency).toBe('high');

    await page.getByRole('link', { name: 'Overview' }).click();
    const row = page.locator('tr', { hasText: 'Spring letters are in' });
    await row.waitFor();
    await page.locator('figure[data-chart="campaigns"] .recharts-bar-rectangle').first().waitFor();
    // click rate is clicked / shown: nothing reported shown yet, so no rate rather than 0 %
    expect(await row.locator('[data-rate="clickRate"]').textContent()).toBe('—');
    expect(await row.locator('td').nth(3).textContent()).toBe(`${vipPaths.length} / ${vipPaths.length}`);
    expect(await page.locator('tr.failures [data-failure]').first().textContent()).toContain('403 BadJwtToken from 127.0.0.1: 1');
    // the site over time: this campaign's deliveries in the notifications-per-day chart
    const perDay = page.locator('figure[data-chart="notifications"]');
    await perDay.locator('.recharts-line').first().waitFor();
    expect(await perDay.getAttribute('aria-label')).toMatch(
      new RegExp(
        `^Notifications from \\d{4}-\\d\\d-\\d\\d to \\d{4}-\\d\\d-\\d\\d: ${vipPaths.length - 1} delivered, 0 shown, 0 clicked, 0 conversions\\.$`,
      ),
    );
  });

  it('schedules a notification for a later time and cancels it before it goes', async () => {
    const before = pushService.requests.length;
    await page.getByRole('link', { name: 'Send a notification' }).click();
    await page.getByLabel('Title').fill('New year letters');
    await page.getByLabel('Message').fill('A fresh alphabet for the new year.');
    await page.getByLabel('At a date and time').check();
    await page.getByRole('button', { name: 'Review and send' }).click();
    await expect.poll(() => page.getByText('choose a date and time').count()).toBe(1);
    await page.getByLabel('Date and time (your clock)').fill('2099-01-01T09:00');
    await page.getByLabel('A segment').check();
    await page.getByLabel('Segment', { exact: true }).selectOption('vip');
    await page.getByRole('button', { name: 'Review and send' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Schedule' }).click();

    await page.getByRole('heading', { name: 'Scheduled' }).waitFor({ timeout: 30_000 });
    const due = await page.locator('[data-next-due]').getAttribute('data-next-due');
    expect(due).toBe(new Date(await page.evaluate(() => new Date('2099-01-01T09:00').toISOString())).toISOString());
    await shot('compose-scheduled');
    await page.getByRole('button', { name: 'Cancel this campaign' }).click();
    await page.getByRole('heading', { name: 'Cancelled' }).waitFor({ timeout: 30_000 });
    expect(pushService.requests.length).toBe(before);
  });

  it('finds a subscriber, exports their data and deletes them', async () => {
    await page.getByRole('link', { name: 'Subscribers' }).click();
    await expect.poll(() => page.locator('[data-total]').getAttribute('data-total')).toBe(String(SUBSCRIBERS));
    expect(await page.locator('tbody tr').count()).toBe(50);
    await shot('subscribers');
    await page.getByLabel('Page', { exact: true }).fill('6');
    await page.getByRole('button', { name: 'Go' }).click();
    await expect.poll(() => page.locator('[data-total]').textContent()).toBe(`251–300 of ${SUBSCRIBERS}`);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => page.getByLabel('Page', { exact: true }).inputValue()).toBe('5');

    await page.getByLabel('In segment').selectOption('vip');
    await expect.poll(() => page.locator('[data-total]').getAttribute('data-total')).toBe(String(Math.floor(SUBSCRIBERS / 7)));
    for (const cell of await page.locator('tbody tr td:nth-child(5)').allTextContents()) expect(cell.split(', ')).toContain('vip');
    await page.getByLabel('In segment').selectOption('');

    await page.getByLabel('Search').fill('sub-0042');
    await expect.poll(() => page.locator('[data-total]').getAttribute('data-total')).toBe('1');
    expect(await page.locator('tbody tr td').nth(5).textContent()).toBe('plan=pro');
    await page.getByRole('link', { name: 'sub-0042' }).click();
    await page.getByRole('heading', { name: 'Subscriber sub-0042' }).waitFor();
    await expect
      .poll(() => page.locator('[data-member-of]').evaluateAll((items) => items.map((item) => item.getAttribute('data-member-of'))))
      .toEqual(['vip']);
    // why the campaign to vip did not reach them; a failed push is not one they received
    expect(await page.locator('[data-last-failure]').getAttribute('data-last-failure')).toBe('403 BadJwtToken from 127.0.0.1');
    expect(await page.locator('dt:text-is("Notifications") + dd').textContent()).toBe('0 received');
    await shot('subscriber-detail');

    await page.getByLabel('Add to segment').selectOption('blog-readers');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect
      .poll(() => page.locator('[data-member-of]').evaluateAll((items) => items.map((item) => item.getAttribute('data-member-of'))))
      .toEqual(['blog-readers', 'vip']);
    await shot('subscriber-segments');
    await page.getByRole('button', { name: 'Remove from blog-readers' }).click();
    await expect.poll(() => page.locator('[data-member-of]').count()).toBe(1);
    expect(await page.getByRole('status').filter({ hasText: 'Removed from blog-readers.' }).count()).toBe(1);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export data (JSON)' }).click();
    const exported = JSON.parse(await readFile((await (await download).path())!, 'utf8'));
    expect(exported).toMatchObject({ site: 'letters', subscriber: { id: 'sub-0042' }, tags: { plan: 'pro' }, segments: ['vip'] });
    expect(exported.deliveries).toHaveLength(1);

    await page.getByRole('button', { name: 'Delete subscriber' }).click();
    await page.getByRole('button', { name: 'Delete sub-0042 for good' }).click();
    await expect.poll(() => page.getByText('Subscriber sub-0042 and everything stored about them were deleted.').count()).toBe(1);
    await expect.poll(() => page.locator('[data-total]').getAttribute('data-total')).toBe('0');
    const gone = await fetch(`${providerUrl}/api/v1/sites/letters/subscribers/sub-0042`, {
      headers: { authorization: `Bearer ${lettersKey}` },
    });
    expect(gone.status).toBe(404);
    await shot('subscriber-deleted');
    // the campaign that went to them keeps its figures
    await page.getByRole('link', { name: 'Overview' }).click();
    const row = page.locator('tr', { hasText: 'Spring letters are in' });
    await row.waitFor();
    expect(await row.locator('td').nth(3).textContent()).toBe(`${vipPaths.length} / ${vipPaths.length}`);
  });

  it('automations: view, edit and pause each one; subscription health and legacy keys on the overview', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await expect.poll(() => page.locator('[data-health="expired-total"]').textContent()).toBe(String(byStatus.expired));
    expect(await page.locator('[data-health="at-risk"]').textContent()).toBe('0');
    expect(await page.locator('[data-keys="on-legacy-key"]').textContent()).toBe(String(onLegacyKey));

    await page.getByRole('link', { name: 'Automations' }).click();
    const welcome = page.locator('section[data-kind="welcome"]');
    const cart = page.locator('section[data-kind="abandonedCart"]');
    await expect.poll(() => welcome.getByTestId('welcome-state').textContent()).toBe('Paused');
    expect(await cart.getByTestId('abandonedCart-state').textContent()).toBe('Paused');
    const stored = async (kind: string) => {
      const reply = await fetch(`${providerUrl}/api/v1/sites/letters/automations/${kind}`, {
        headers: { authorization: `Bearer ${lettersKey}` },
      });
      return ((await reply.json()) as { automation: Record<string, unknown> }).automation;
    };

    await welcome.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => welcome.getByTestId('welcome-state').textContent()).toBe('On, 5 min after');
    expect(await stored('welcome')).toMatchObject({ enabled: true, changed: ['enabled'] });

    await cart.getByLabel('Minutes after the add-to-cart with no order').fill('abc');
    await cart.getByRole('button', { name: 'Save abandoned cart' }).click();
    await expect.poll(() => cart.getByRole('alert').textContent()).toBe('The delay is a whole number of minutes, 0 to 43200.');
    await cart.getByLabel('Minutes after the add-to-cart with no order').fill('120');
    await cart.getByLabel('Title').fill('Forgot {product}?');
    await cart.getByRole('button', { name: 'Save abandoned cart' }).click();
    await expect.poll(() => cart.getByRole('status').textContent()).toBe('Saved. Messages already scheduled keep their text and time.');
    expect(await stored('abandonedCart')).toMatchObject({ enabled: false, delayMinutes: 120, title: 'Forgot {product}?' });
    await shot('automations');

    await welcome.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => welcome.getByTestId('welcome-state').textContent()).toBe('Paused');
    expect(await stored('welcome')).toMatchObject({ enabled: false });
    expect(await welcome.locator('[data-stat="sent"]').textContent()).toBe('0');
  });
  it('A/B test from the compose screen: the same checks as the API, each variant to its share, its figures on screen', async () => {
    await page.getByRole('link', { name: 'Send a notification' }).click();
    // the automations screen before it has Title fields too
    await page.getByRole('heading', { name: 'Send a notification' }).waitFor();
    await page.getByLabel('Title').fill('Autumn letters');
    await page.getByLabel('Message').fill('Nine pieces for the autumn.');
    await page.getByLabel('Test variants of this notification').check();
    await page.getByLabel('Variant A title').fill('Autumn letters are here');
    await page.getByLabel('Variant B title').fill('New: nine autumn letters');
    await page.getByLabel('Variant B opens (URL)').fill('javascript:alert(1)');
    await page.getByLabel('Share of the audience in the test (%)').fill('50');
    await page.getByLabel('Pick the winner after (minutes)').fill('2');
    await page.getByLabel('A segment').check();
    await page.getByLabel('Segment', { exact: true }).selectOption('vip');
    await page.getByRole('button', { name: 'Review and send' }).click();
    // the owner API's own input schema, word for word, at each field
    await expect.poll(() => page.locator('#winnerAfter-problem').textContent()).toBe('must be 5 or more');
    expect(await page.locator('#variant1-url-problem').textContent()).toBe('must be an absolute http(s) URL');
    expect(await page.getByLabel('Pick the winner after (minutes)').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Variant B opens (URL)').fill('');
    await page.getByLabel('Pick the winner after (minutes)').fill('60');
    await page.getByRole('button', { name: 'Review and send' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.waitFor();
    await shot('compose-ab-test');
    const recipients = Number(await confirm.locator('[data-recipients]').getAttribute('data-recipients'));
    const before = pushService.requests.length;
    await confirm.getByRole('button', { name: 'Send now' }).click();

    // half of the segment gets the test, split evenly between A and B; the rest waits for the winner
    const testSize = Math.round(recipients / 2);
    await expect.poll(() => pushService.requests.length - before, { timeout: 30_000 }).toBe(testSize);
    const sent = pushService.requests.slice(before).map((request) => {
      const message = JSON.parse(decryptPushBody(request.body, subscriberKeys).toString('utf8'));
      return {
        title: message.notification.title as string,
        campaignId: message.notification.data.campaignId as string,
        endpoint: `${pushService.origin}${request.path}`,
      };
    });
    const titles = sent.map((message) => message.title);
    const countOf = (title: string) => titles.filter((each) => each === title).length;
    expect(countOf('Autumn letters are here') + countOf('New: nine autumn letters')).toBe(testSize);
    expect(Math.abs(countOf('Autumn letters are here') - countOf('New: nine autumn letters'))).toBeLessThanOrEqual(1);

    // one subscriber of variant A clicks (the worker's report; these seeded subscribers have no secret, so no click
    // token: the report proves itself with the subscription's endpoint)
    const clicked = sent.find((message) => message.title === 'Autumn letters are here')!;
    const report = await fetch(`${providerUrl}/notificationEvent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://letters.example' },
      body: JSON.stringify({ hash: LETTERS_HASH, campaignId: clicked.campaignId, endpoint: clicked.endpoint, event: 'clicked' }),
    });
    expect(report.status).toBe(200);

    const variants = page.getByRole('table', { name: 'A/B test variants' });
    await variants.waitFor({ timeout: 30_000 });
    const rowOf = (letter: string) => variants.locator(`tr[data-variant="${letter}"]`);
    await expect.poll(() => rowOf('A').locator('td').nth(1).textContent()).toBe(String(countOf('Autumn letters are here')));
    await expect.poll(() => rowOf('A').locator('td').nth(3).textContent(), { timeout: 10_000 }).toBe('1');
    expect(await rowOf('B').locator('td').nth(3).textContent()).toBe('0');
    // the test share counts as delivered once its last result is written, which may come after its last post
    await expect
      .poll(() => page.locator('[data-winner]').textContent(), { timeout: 10_000 })
      .toMatch(/^The variant with the best click rate goes to the rest at /);
    await shot('compose-ab-test-figures');

    // the same figures stay on the overview, under the campaign
    await page.getByRole('link', { name: 'Overview' }).click();
    const overviewVariants = page.locator('tr.variants').first().getByRole('table', { name: 'A/B test variants' });
    await overviewVariants.waitFor();
    expect(await overviewVariants.locator('tr[data-variant="A"] td').first().textContent()).toBe('A: Autumn letters are here');
    expect(await overviewVariants.locator('tr[data-variant="A"] td').nth(3).textContent()).toBe('1');
  });
  it('languages from the compose screen: add one, its checks, its preview, and the subscriber gets it in their language', async () => {
    await page.getByRole('link', { name: 'Send a notification' }).click();
    await page.getByRole('heading', { name: 'Send a notification' }).waitFor();
    await page.getByLabel('Title').fill('Winter letters');
    await page.getByLabel('Message').fill('Five pieces for the winter.');
    await page.getByRole('button', { name: 'Add language' }).click();
    await page.getByLabel('Language 1 tag').fill('Portuguese');
    await page.getByLabel('Portuguese title').fill('Cartas de inverno');
    await page.getByLabel('One subscriber').check();
    // a pt-BR subscriber of the seed (every fourth is)
    await page.getByLabel('Subscriber id').fill('sub-0008');
    await page.getByRole('button', { name: 'Review and send' }).click();
    // the owner API's own check of the tag, and the form's of the empty message, at their fields
    await expect.poll(() => page.locator('#language0-tag-problem').textContent()).toBe('must be a language tag such as de or fr-CA');
    expect(await page.locator('#language0-body-problem').textContent()).toBe('a message is required');
    await page.getByLabel('Language 1 tag').fill('pt');
    await page.getByLabel('pt message').fill('Cinco peças para o inverno.');
    // the preview shows the language chosen
    const preview = page.getByRole('figure', { name: 'Preview of the notification' });
    expect(await preview.locator('.preview-title').textContent()).toBe('Winter letters');
    await page.getByLabel('Preview in').selectOption('pt');
    expect(await preview.locator('.preview-title').textContent()).toBe('Cartas de inverno');
    expect(await preview.locator('.preview-body').textContent()).toBe('Cinco peças para o inverno.');
    await shot('compose-languages');
    await page.getByRole('button', { name: 'Review and send' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.waitFor();
    const before = pushService.requests.length;
    await confirm.getByRole('button', { name: 'Send now' }).click();
    await expect.poll(() => pushService.requests.length - before, { timeout: 30_000 }).toBe(1);
    const request = pushService.requests[before]!;
    expect(request.path).toBe('/push/sub-0008');
    const message = JSON.parse(decryptPushBody(request.body, subscriberKeys).toString('utf8'));
    expect(message.notification).toMatchObject({ title: 'Cartas de inverno', body: 'Cinco peças para o inverno.' });
    // the results split by language: the one recipient got the pt texts
    const byLanguage = page.getByRole('table', { name: 'By language' });
    await byLanguage.waitFor({ timeout: 30_000 });
    await expect.poll(() => byLanguage.locator('tr[data-language="pt"] td').nth(2).textContent()).toBe('1');
    expect(await byLanguage.locator('tr[data-language="default"] td').nth(1).textContent()).toBe('0');
    await shot('compose-languages-results');
  });

  it('imports a file: a dry run lists the refused rows by line and writes nothing, the import stores the good ones', async () => {
    await page.getByRole('link', { name: 'Import' }).click();
    const paths = ['/push/imported-1', '/push/imported-2'];
    const csv = [
      'endpoint,p256dh,auth,segments',
      ...paths.map((path) => `${pushService.origin}${path},${subscriberKeys.p256dh},${subscriberKeys.auth},from-import`),
      `https://push.evil.example/x,${subscriberKeys.p256dh},${subscriberKeys.auth},`,
    ].join('\n');
    await page
      .getByLabel('File of subscriptions')
      .setInputFiles({ name: 'subscribers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    const imported = async () => {
      const reply = await fetch(`${providerUrl}/api/v1/sites/letters/subscribers?segment=from-import`, {
        headers: { authorization: `Bearer ${lettersKey}` },
      });
      return reply.status === 200 ? ((await reply.json()) as { total: number }).total : 0;
    };

    await page.getByRole('button', { name: 'Check (dry run)' }).click();
    await page.getByRole('heading', { name: 'Dry run: nothing was written' }).waitFor();
    const figures = page.getByRole('definition');
    expect(await figures.allTextContents()).toEqual(['3', '2', '0', '1']);
    const refused = page.getByRole('table', { name: 'Refused rows' });
    expect(await refused.locator('tbody tr td').allTextContents()).toEqual([
      '4',
      'endpoint: https://push.evil.example is not a push service this provider sends to',
    ]);
    expect(await imported()).toBe(0);
    await shot('import-dry-run');

    await page.getByRole('button', { name: 'Import 2 subscribers' }).click();
    await page.getByRole('heading', { name: 'Imported', exact: true }).waitFor();
    expect(await figures.allTextContents()).toEqual(['3', '2', '0', '1']);
    expect(await page.getByText('Segments created: from-import').count()).toBe(1);
    expect(await imported()).toBe(2);
    await shot('import-done');
  });

  it('webhooks: adds an endpoint (its secret shown once), refuses an http one, disables it and reads its log', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Add an endpoint' }).waitFor();
    await page.getByLabel('URL').fill('http://crm.example.com/hook');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^url: must be https/);
    await page.getByLabel('URL').fill('https://203.0.113.9/push-kit');
    await page.getByRole('checkbox', { name: 'notification.clicked' }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = page.locator('[data-secret]');
    await expect.poll(() => secret.textContent()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const row = page.locator('tr[data-endpoint]');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('subscriber.created, notification.clicked');
    await shot('webhooks');
    await row.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => row.getAttribute('data-status')).toBe('disabled');
    expect(await row.textContent()).toContain('disabled by the owner');
    const listed = await fetch(`${providerUrl}/api/v1/sites/letters/webhooks`, { headers: { authorization: `Bearer ${lettersKey}` } });
    expect(JSON.stringify(await listed.json())).not.toContain((await secret.textContent())!.slice(6));
    await row.getByRole('link', { name: 'Log' }).click();
    await page.getByRole('heading', { name: /^Delivery log of endpoint/ }).waitFor();
    await expect.poll(() => page.getByText('No attempt yet.').count()).toBe(1);
  });

  it('feeds: refuses a private address, adds a digest feed, lists it, removes it', async () => {
    await page.getByRole('link', { name: 'Feeds' }).click();
    await page.getByRole('heading', { name: 'Add a feed' }).waitFor();
    await page.getByLabel('RSS or Atom URL').fill('https://192.168.1.20/feed.xml');
    await page.getByRole('button', { name: 'Add feed' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^url: 192\.168\.1\.20 is a private address/);
    await page.getByLabel('RSS or Atom URL').fill('https://203.0.113.9/feed.xml');
    await page.getByLabel('Minutes between polls').fill('30');
    await page.getByRole('radio', { name: 'one digest per poll' }).check();
    await page.getByRole('button', { name: 'Add feed' }).click();
    const row = page.locator('tr[data-feed]');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('A digest to everyone, every 30 min');
    expect(await row.textContent()).toContain('Not yet');
    await shot('feeds');
    // removing asks first, Keep focused (a keyboard's next Enter keeps it); the second step removes
    await row.getByRole('button', { name: 'Remove feed' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Keep');
    await page.keyboard.press('Enter');
    await row.getByRole('button', { name: 'Remove feed' }).click();
    await row.getByRole('button', { name: 'Remove https://203.0.113.9/feed.xml for good' }).click();
    await expect.poll(() => row.count()).toBe(0);
    const listed = await fetch(`${providerUrl}/api/v1/sites/letters/feeds`, { headers: { authorization: `Bearer ${lettersKey}` } });
    expect(((await listed.json()) as { feeds: unknown[] }).feeds).toEqual([]);
  });

  it('members: a sign-in link opens it once as an editor (named, no owner screens); the owner sees the team and the audit log', async () => {
    const owner = { authorization: `Bearer ${lettersKey}`, 'content-type': 'application/json' };
    const added = await fetch(`${providerUrl}/api/v1/sites/letters/members`, {
      method: 'POST',
      headers: owner,
      body: JSON.stringify({ name: 'Ana', role: 'editor', link: true }),
    });
    const { signInToken } = (await added.json()) as { signInToken: string };
    await page.goto(`${providerUrl}/dashboard/#sign-in=${signInToken}`);
    await expect.poll(() => page.locator('.signed-in').textContent()).toBe('Signed in as Ana (editor)');
    expect(page.url()).not.toContain(signInToken);
    expect(await page.getByRole('link', { name: 'Send a notification' }).count()).toBe(1);
    for (const ownerScreen of ['Members', 'Audit log', 'Webhooks', 'Import']) {
      expect(await page.getByRole('link', { name: ownerScreen }).count(), ownerScreen).toBe(0);
    }
    await shot('signed-in-editor');
    // the link is spent: used again it signs nobody in
    await page.goto(`${providerUrl}/dashboard/#sign-in=${signInToken}`);
    await expect.poll(() => page.getByText(/sign-in link is unknown, used already or expired/).count()).toBe(1);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Owner key').fill(lettersKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('.signed-in').textContent()).toBe('Signed in as Owner (owner)');
    await page.getByRole('link', { name: 'Members' }).click();
    const ana = page.locator('tr[data-member]', { hasText: 'Ana' });
    await expect.poll(() => ana.textContent()).toContain('Has a key');
    await page.getByLabel('Name').fill('Vic');
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Add member' }).click();
    await expect.poll(() => page.locator('code.snippet').textContent()).toMatch(/^pk_[A-Za-z0-9_-]{32}$/);
    await shot('members');
    await page.getByRole('link', { name: 'Audit log' }).click();
    const rows = page.locator('table[aria-label="Audit log"] tbody tr');
    await expect.poll(() => rows.first().textContent()).toContain('member.add');
    expect(await rows.first().textContent()).toContain('Owner');
    expect(await page.locator('table[aria-label="Audit log"]').textContent()).toContain('member.sign-in');
    await shot('audit-log');
  });
});
