// A trusted notification click in Chromium: the notification goes out over D-Bus to a fake desktop
// notification server, which clicks it (ActionInvoked). sw.js opens the payload's URL in a new page and
// the provider records the click; a URL on an origin the site did not configure opens the site instead,
// and one on a configured notificationClickOrigins origin opens as asked.
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { clickTokenOf } from '../../server/campaigns/click-token.ts';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import { markDelivered } from '../support/deliveries.ts';
import type { Database } from '../../server/db/database.ts';
import { loadSites, type HostedSite } from '../../server/sites.ts';
import { startProvider, type Provider } from '../../server/start-provider.ts';
import { embeddedDatabaseDir } from '../../server/state-paths.ts';
import { allStarted, borrowChromium, type TestBrowser } from '../support/browser.ts';
import { retryOnPortInUse } from '../support/port-retry.ts';
import { seedMigratedDatabase } from '../support/migrated-database.ts';
import { freePort } from '../support/ports.ts';
import { startFakeNotificationServer, type DesktopNotification, type FakeNotificationServer } from '../support/worker-dbus.ts';
import { deliverPush, registerWorker, startWorkerSite, type WorkerSite } from '../support/worker.ts';

let desktop: FakeNotificationServer;
let site: WorkerSite;
let browser: TestBrowser;
let db: Database;
let provider: Provider;
let hosted: HostedSite;
let page: Page;
/** Another origin of the same test server, configured as a notificationClickOrigins entry. */
let otherOrigin: string;

beforeAll(async () => {
  desktop = await startFakeNotificationServer();
  // Chromium starts while the site is built and the provider starts; whatever started is closed in afterAll
  const launching = borrowChromium([], { env: { DBUS_SESSION_BUS_ADDRESS: desktop.address } }).then((started) => (browser = started));
  // the provider's port is named in the built config: a start that loses it to another process is made again
  const starting = retryOnPortInUse(async () => {
    const providerPort = await freePort();
    site = await startWorkerSite({
      serverSyncUrl: `http://127.0.0.1:${providerPort}`,
      overrides: (port) => ({ notificationClickOrigins: [`http://127.0.0.1:${port}`] }),
    });
    const { sites, problems } = await loadSites([site.configFile], dirname(site.builtDir));
    if (problems.length) throw new Error(problems.join('\n'));
    hosted = sites[0]!;
    const stateDir = `${site.builtDir}-state`;
    // its embedded database starts migrated (migrated-database.ts): this file is not about making one
    provider = await seedMigratedDatabase(embeddedDatabaseDir(stateDir))
      .then(() => startProvider({ sites, port: providerPort, stateDir }))
      .catch(async (error: unknown) => {
        await site.close();
        throw error;
      });
  });
  await allStarted([launching, starting]);
  otherOrigin = (site.config.notificationClickOrigins as string[])[0]!;
  db = provider.db;
  await browser.context.grantPermissions(['notifications'], { origin: site.origin });
  page = await browser.context.newPage();
  await page.goto(`${site.origin}/register-here`);
  await registerWorker(page, '/sw.js', '/');
});
afterAll(async () => {
  await browser?.close();
  await provider?.close();
  await desktop?.close();
  await site?.close();
});

const SECRET_HASH = 'worker-click-secret-hash';

/**
 * A campaign to this browser's subscriber, and the click token of its delivery: the proof a report of the
 * worker carries, without which the provider counts nothing (SECURITY.md, notification reports).
 */
async function campaign(title: string): Promise<{ campaignId: string; click: string }> {
  await db.query(
    `INSERT INTO subscribers (id, site_hash, status, endpoint, p256dh, auth, secret_hash)
     VALUES ('worker-click-subscriber', $1, 'subscribed', 'https://fcm.googleapis.com/fcm/send/worker-click', 'p256dh', 'auth', $2)
     ON CONFLICT (id) DO NOTHING`,
    [hosted.hash, SECRET_HASH],
  );
  const { campaignId } = await createCampaign(db, hosted, { title, body: 'body', url: `${site.origin}/`, ttl: 3600, urgency: 'normal' });
  // sent: the push service took it (a report counts only then); the push itself reaches Chromium through CDP
  await markDelivered(db, campaignId);
  const { rows } = await db.query<{ id: string }>('SELECT id FROM deliveries WHERE campaign_id = $1', [campaignId]);
  return { campaignId, click: clickTokenOf(String(rows[0]!.id), SECRET_HASH) };
}

/** Delivers the payload, waits for the desktop to show it, clicks it and returns the page the click opened. */
async function pushAndClick(payload: Record<string, unknown>): Promise<{ shown: DesktopNotification; opened: Page }> {
  const title = (payload.notification as { title?: string } | undefined)?.title ?? payload.title;
  const onDesktop = () => desktop.notifications.some((entry) => entry.summary === title);
  await deliverPush(browser.context, page, site.origin, `${site.origin}/`, JSON.stringify(payload), onDesktop);
  await expect.poll(() => desktop.notifications.find((entry) => entry.summary === title), { timeout: 10_000 }).toBeDefined();
  const shown = desktop.notifications.find((entry) => entry.summary === title)!;
  const opened = browser.context.waitForEvent('page', { timeout: 10_000 });
  desktop.click(shown.id);
  const newPage = await opened;
  await newPage.waitForLoadState('domcontentloaded');
  return { shown, opened: newPage };
}

const events = async (campaignId: string) =>
  (await db.query<{ kind: string }>('SELECT kind FROM events WHERE campaign_id = $1 ORDER BY kind', [campaignId])).rows.map(
    (row) => row.kind,
  );

describe('a click on a notification', () => {
  it('opens the payload URL in a new page and the provider records shown and clicked', async () => {
    const { campaignId, click } = await campaign('Click me');
    const { shown, opened } = await pushAndClick({
      title: 'Click me',
      body: 'New pieces are in.',
      url: `${site.origin}/submissions.html?from=push`,
      campaignId,
      data: { click },
    });
    expect(shown.body).toContain('New pieces are in.');
    expect(opened.url()).toBe(`${site.origin}/submissions.html?from=push`);
    expect(await opened.title()).toBe('/submissions.html');
    await expect.poll(() => events(campaignId), { timeout: 10_000 }).toEqual(['clicked', 'shown']);
    await opened.close();
  });

  it('shows a declarative push message through the worker and a click opens its navigate URL', async () => {
    const { campaignId, click } = await campaign('Declarative');
    const navigate = `${site.origin}/classes.html?from=declarative`;
    const { shown, opened } = await pushAndClick({
      web_push: 8030,
      notification: { title: 'Declarative', body: 'Spring classes are open.', navigate, data: { campaignId, click } },
      mutable: true,
    });
    expect(shown.body).toContain('Spring classes are open.');
    expect(opened.url()).toBe(navigate);
    expect(await opened.title()).toBe('/classes.html');
    await expect.poll(() => events(campaignId), { timeout: 10_000 }).toEqual(['clicked', 'shown']);
    await opened.close();
  });

  it('opens the site, not a URL on an origin the site did not configure', async () => {
    const { campaignId, click } = await campaign('Phish');
    const { opened } = await pushAndClick({
      title: 'Phish',
      body: 'Claim your prize',
      url: 'http://127.0.0.2:9/prize',
      campaignId,
      data: { click },
    });
    expect(opened.url()).toBe(`${site.origin}/`);
    await expect.poll(() => events(campaignId), { timeout: 10_000 }).toEqual(['clicked', 'shown']);
    await opened.close();
  });

  it('a message without its click token (forged, or queued before tokens) still shows and opens, but counts nothing', async () => {
    const { campaignId } = await campaign('Unproven');
    const { opened } = await pushAndClick({ title: 'Unproven', body: 'No token', url: `${site.origin}/`, campaignId });
    expect(opened.url()).toBe(`${site.origin}/`);
    // the worker's reports went out (it cannot know) and the provider refused them: no subscription proves them
    await opened.waitForTimeout(500);
    expect(await events(campaignId)).toEqual([]);
    await opened.close();
  });

  it('opens a URL on a configured notificationClickOrigins origin', async () => {
    const { opened } = await pushAndClick({ title: 'Shop', body: 'On the shop', url: `${otherOrigin}/cart` });
    expect(opened.url()).toBe(`${otherOrigin}/cart`);
    await opened.close();
  });
});
