// Living beside a site's own service worker, in Chromium. The site's worker (/own-sw.js: a fetch handler and
// `importScripts('/push-kit-sw.js')`) keeps answering its pages' fetches and shows push-kit's notifications;
// nothing takes over a page no worker controlled. push-kit's own sw.js registered over the site's worker
// waits instead of replacing it, while a new version of sw.js over an older sw.js takes over at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { allStarted, borrowChromium, type TestBrowser } from '../support/browser.ts';
import { deliverPush, registerWorker, shownNotifications, startWorkerSite, type WorkerSite } from '../support/worker.ts';

let site: WorkerSite;
let browser: TestBrowser;

beforeAll(async () => {
  // the site and Chromium start side by side; whatever started is closed in afterAll
  await allStarted([
    startWorkerSite({ overrides: { swPath: '/own-sw.js', firefoxSwPath: '/own-sw.js' } }).then((started) => (site = started)),
    borrowChromium().then((started) => (browser = started)),
  ]);
  await browser.context.grantPermissions(['notifications'], { origin: site.origin });
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

const hello = (page: Page) => page.evaluate(async () => (await fetch('/own/hello')).text());
const controller = (page: Page) => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null);

describe("a site's own worker that imports push-kit-sw.js", () => {
  let uncontrolled: Page;
  let controlled: Page;

  it('keeps answering its fetches and shows a push', async () => {
    uncontrolled = await browser.context.newPage();
    await uncontrolled.goto(`${site.origin}/before-the-worker`);
    await uncontrolled.evaluate(() => ((window as unknown as { loadedOnce: number }).loadedOnce = 1));
    await registerWorker(uncontrolled, '/own-sw.js', '/');

    controlled = await browser.context.newPage();
    await controlled.goto(`${site.origin}/shop`);
    expect(await controller(controlled)).toBe(`${site.origin}/own-sw.js`);
    expect(await hello(controlled)).toBe("answered by the site's own worker");

    await deliverPush(
      browser.context,
      controlled,
      site.origin,
      `${site.origin}/`,
      JSON.stringify({ title: 'Back in stock', body: 'The gold nib pen', tag: 'stock', url: '/products/gold-nib-pen.html' }),
    );
    await expect
      .poll(() => shownNotifications(controlled, `${site.origin}/`), { timeout: 10_000 })
      .toMatchObject([
        {
          title: 'Back in stock',
          body: 'The gold nib pen',
          tag: 'stock',
          icon: `${site.origin}/icon.png`,
          data: { url: '/products/gold-nib-pen.html' },
        },
      ]);

    expect(await hello(controlled)).toBe("answered by the site's own worker");
    expect(await controller(controlled)).toBe(`${site.origin}/own-sw.js`);
  });

  it('never claims or reloads a page it did not control', async () => {
    expect(await controller(uncontrolled)).toBeNull();
    expect(await uncontrolled.evaluate(() => (window as unknown as { loadedOnce?: number }).loadedOnce)).toBe(1);
    expect(await hello(uncontrolled)).toBe('answered by the network');
  });

  it("push-kit's sw.js registered at the same scope waits behind the site's worker instead of taking its pages", async () => {
    const states = await controlled.evaluate(async () => {
      const registration = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
      const worker = registration.installing ?? registration.waiting;
      if (worker && worker.state !== 'installed') {
        await new Promise<void>((resolve) => worker.addEventListener('statechange', () => worker.state !== 'installing' && resolve()));
      }
      // Give a skipWaiting() time to act, were it called.
      await new Promise((resolve) => setTimeout(resolve, 500));
      return { active: registration.active?.scriptURL, waiting: registration.waiting?.scriptURL, state: worker?.state };
    });
    expect(states).toEqual({ active: `${site.origin}/own-sw.js`, waiting: `${site.origin}/sw.js`, state: 'installed' });
    expect(await controller(controlled)).toBe(`${site.origin}/own-sw.js`);
    expect(await hello(controlled)).toBe("answered by the site's own worker");
  });
});

describe("push-kit's own sw.js", () => {
  it('a new version of sw.js replaces the older sw.js at once, the page it controls stays loaded', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${site.origin}/push/`);
    await registerWorker(page, '/sw.js', '/push/');
    await page.reload();
    expect(await controller(page)).toBe(`${site.origin}/sw.js`);
    await page.evaluate(() => ((window as unknown as { loadedOnce: number }).loadedOnce = 1));

    site.swVersion = 2;
    const state = await page.evaluate(async () => {
      const registration = (await navigator.serviceWorker.getRegistration('/push/'))!;
      await registration.update();
      const worker = registration.installing ?? registration.waiting;
      if (!worker) return 'no new version';
      await Promise.race([
        new Promise<void>((resolve) => {
          const check = () => worker.state === 'activated' && resolve();
          worker.addEventListener('statechange', check);
          check();
        }),
        new Promise((resolve) => setTimeout(resolve, 5000)),
      ]);
      return `${worker.state}, waiting: ${registration.waiting !== null}, active is new: ${registration.active === worker}`;
    });
    expect(state).toBe('activated, waiting: false, active is new: true');
    expect(await page.evaluate(() => (window as unknown as { loadedOnce?: number }).loadedOnce)).toBe(1);
  });
});
