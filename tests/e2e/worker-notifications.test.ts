// sw.js in Chromium: a push delivered through CDP shows the payload's notification (title, body, icon, image,
// badge, tag, actions, requireInteraction, data), and a payload that is empty or not usable shows the site's
// default (companyName and the site icon), never an empty notification.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { allStarted, borrowChromium, type TestBrowser } from '../support/browser.ts';
import {
  closeNotifications,
  deliverPush,
  registerWorker,
  shownNotifications,
  startWorkerSite,
  type WorkerSite,
} from '../support/worker.ts';

let site: WorkerSite;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  // the site and Chromium start side by side; whatever started is closed in afterAll
  await allStarted([startWorkerSite().then((started) => (site = started)), borrowChromium().then((started) => (browser = started))]);
  await browser.context.grantPermissions(['notifications'], { origin: site.origin });
  page = await browser.context.newPage();
  await page.goto(`${site.origin}/`);
  await registerWorker(page, '/sw.js', '/');
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});
beforeEach(() => closeNotifications(page, `${site.origin}/`));

const push = (data: string) => deliverPush(browser.context, page, site.origin, `${site.origin}/`, data);
const notifications = () => shownNotifications(page, `${site.origin}/`);

describe('sw.js shows the notification of a push', () => {
  it('with every field of the payload', async () => {
    await push(
      JSON.stringify({
        title: 'New Calligraphy submissions',
        body: 'Three new pieces are in.',
        icon: `${site.origin}/icon.png?campaign`,
        image: `${site.origin}/icon.png?image`,
        badge: `${site.origin}/icon.png?badge`,
        url: `${site.origin}/submissions.html`,
        tag: 'submissions-7',
        requireInteraction: true,
        campaignId: 7,
        actions: [
          { action: 'view', title: 'View them', url: '/submissions.html#new' },
          { action: 'later', title: 'Later' },
        ],
      }),
    );
    await expect.poll(notifications, { timeout: 10_000 }).toHaveLength(1);
    const [shown] = await notifications();
    expect(shown).toEqual({
      title: 'New Calligraphy submissions',
      body: 'Three new pieces are in.',
      icon: `${site.origin}/icon.png?campaign`,
      image: `${site.origin}/icon.png?image`,
      badge: `${site.origin}/icon.png?badge`,
      tag: 'submissions-7',
      requireInteraction: true,
      actions: [
        { action: 'view', title: 'View them' },
        { action: 'later', title: 'Later' },
      ],
      data: { url: `${site.origin}/submissions.html`, campaignId: 7, actionUrls: { view: '/submissions.html#new' } },
    });
  });

  it('a second push with the same tag replaces the first', async () => {
    await push(JSON.stringify({ title: 'First', tag: 'same' }));
    await expect.poll(notifications, { timeout: 10_000 }).toHaveLength(1);
    await push(JSON.stringify({ title: 'Second', tag: 'same' }));
    await expect.poll(async () => (await notifications()).map((shown) => shown.title), { timeout: 10_000 }).toEqual(['Second']);
  });

  it.each([
    ['an empty payload', '', ''],
    ['JSON without a title', '{"body":"Only a body"}', 'Only a body'],
    ['a blank title', '{"title":"   ","body":""}', ''],
    ['JSON that is cut off', '{"title":"New sub', '{"title":"New sub'],
    ['a JSON string', '"just text"', 'just text'],
  ])('shows the site default for %s', async (_, data, body) => {
    await push(data);
    await expect.poll(notifications, { timeout: 10_000 }).toHaveLength(1);
    const [shown] = await notifications();
    expect(shown).toMatchObject({ title: site.config.companyName, body, icon: `${site.origin}/icon.png`, actions: [] });
    expect(shown!.title).not.toBe('');
  });
});
