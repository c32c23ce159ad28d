// A trusted notification click in Chromium: the notification goes out over D-Bus to a fake desktop
// notification server, which clicks it (ActionInvoked). sw.js opens the payload's URL in a new page and
// the provider records the click; a URL on an origin the site did not configure opens the site instead,
// and one on a configured notificationClickOrigins origin opens as asked.
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createCampaign } from '../../server/store/campaigns.ts';
import type { Database } from '../../server/store/database.ts';
import { loadSites, type HostedSite } from '../../server/sites.ts';
import { startProvider, type Provider } from '../../server/start-provider.ts';
import { launchPersistentChromium, type TestBrowser } from '../support/browser.ts';
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
  const providerPort = await freePort();
  site = await startWorkerSite({
    serverSyncUrl: `http://127.0.0.1:${providerPort}`,
    overrides: (port) => ({ notificationClickOrigins: [`http://127.0.0.1:${port}`] }),
  });
  otherOrigin = (site.config.notificationClickOrigins as string[])[0]!;
  const { sites, problems } = await loadSites([site.configFile], dirname(site.builtDir));
  if (problems.length) throw new Error(problems.join('\n'));
  hosted = sites[0]!;
  provider = await startProvider({ sites, port: providerPort, stateDir: `${site.builtDir}-state` });
  db = provider.db;
  browser = await launchPersistentChromium([], { env: { DBUS_SESSION_BUS_ADDRESS: desktop.address } });
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

async function campaign(title: string): Promise<string> {
  const { campaignId } = await createCampaign(db, hosted, { title, body: 'body', url: `${site.origin}/`, ttl: 3600, urgency: 'normal' });
  return campaignId;
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
    const campaignId = await campaign('Click me');
    const { shown, opened } = await pushAndClick({
      title: 'Click me',
      body: 'New pieces are in.',
      url: `${site.origin}/submissions.html?from=push`,
      campaignId,
    });
    expect(shown.body).toContain('New pieces are in.');
    expect(opened.url()).toBe(`${site.origin}/submissions.html?from=push`);
    expect(await opened.title()).toBe('/submissions.html');
    await expect.poll(() => events(campaignId), { timeout: 10_000 }).toEqual(['clicked', 'shown']);
    await opened.close();
  });

  it('shows a declarative push message through the worker and a click opens its navigate URL', async () => {
    const campaignId = await campaign('Declarative');
    const navigate = `${site.origin}/classes.html?from=declarative`;
    const { shown, opened } = await pushAndClick({
      web_push: 8030,
      notification: { title: 'Declarative', body: 'Spring classes are open.', navigate, data: { campaignId } },
      mutable: true,
    });
    expect(shown.body).toContain('Spring classes are open.');
    expect(opened.url()).toBe(navigate);
    expect(await opened.title()).toBe('/classes.html');
    await expect.poll(() => events(campaignId), { timeout: 10_000 }).toEqual(['clicked', 'shown']);
    await opened.close();
  });

  it('opens the site, not a URL on an origin the site did not configure', async () => {
    const campaignId = await campaign('Phish');
    const { opened } = await pushAndClick({ title: 'Phish', body: 'Claim your prize', url: 'http://127.0.0.2:9/prize', campaignId });
    expect(opened.url()).toBe(`${site.origin}/`);
    await expect.poll(() => events(campaignId), { timeout: 10_000 }).toEqual(['clicked', 'shown']);
    await opened.close();
  });

  it('opens a URL on a configured notificationClickOrigins origin', async () => {
    const { opened } = await pushAndClick({ title: 'Shop', body: 'On the shop', url: `${otherOrigin}/cart` });
    expect(opened.url()).toBe(`${otherOrigin}/cart`);
    await opened.close();
  });
});
