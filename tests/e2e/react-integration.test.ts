// Issue 32's push-kit/react in Chromium: examples/react-site built with esbuild (React in StrictMode, <PushKit />
// in each page's layout) and served at /react/ beside the built calligraphy bundle on the site's origin, the
// real provider and a real pushManager.subscribe() (fake GCM check-in).
// - push.js is requested once and has one script tag, through StrictMode's double effects, remounts and client
//   navigation; usePushKit()'s readiness goes from 'loading' to 'ready'.
// - optIn() from the button's click shows the soft prompt, Yes subscribes and the subscriber id appears in the
//   hook; tag() reaches the provider; after optOut() the same button's click still reaches the visitor (the
//   runtime's trusted-click rule sees the React click's DOM event) and Yes subscribes again.
// - A push.js that does not load makes readiness 'failed'.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReactExample } from '../../examples/react-site/build.ts';
import { tagsOf } from '../../server/subscribers/subscriber-records.ts';
import { borrowChromium, type TestBrowser } from '../support/browser.ts';
import { sharedFakeGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let gcm: FakeGcm;
let browser: TestBrowser;
let appDir: string;
const pushJsRequests: string[] = [];
const syncActions: string[] = [];

beforeAll(async () => {
  appDir = await mkdtemp(join(tmpdir(), 'push-kit-react-'));
  await Promise.all([
    (async () => {
      gcm = await sharedFakeGcm();
      browser = await borrowChromium(gcm.chromiumArgs);
    })(),
    (async () => {
      // the app's pages at /react/, on the site's origin beside its push.js and sw.js
      await buildReactExample(join(appDir, 'react'));
      stack = await startStack({
        // no automatic prompt: only the page's button offers it
        overrides: { triggers: { when: 'delay', delaySeconds: 3600 }, isShopifyConnectedAccount: false },
        fallbackRoot: appDir,
      });
    })(),
  ]);
  browser.context.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/push.js') pushJsRequests.push(request.url());
    if (url.pathname === '/syncSubscriptionAction.php') syncActions.push(new URLSearchParams(request.postData() ?? '').get('action') ?? '');
  });
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await gcm?.close();
  await stack?.close();
  if (appDir) await rm(appDir, { recursive: true, force: true });
});

const text = (page: Page, selector: string) => page.locator(selector).textContent();

describe('push-kit/react in the example app', () => {
  let page: Page;
  const pageErrors: string[] = [];

  it("loads push.js once through StrictMode, remounts and client navigation; readiness goes from 'loading' to 'ready'", async () => {
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // push.js held until the app's first render is seen
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(`${stack.siteUrl}/push.js`, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${stack.siteUrl}/react/`);
    expect(await text(page, '#readiness')).toBe('loading');
    release();
    await expect.poll(() => text(page, '#readiness')).toBe('ready');

    await page.locator('#remount').click();
    await page.locator('#remount').click();
    await page.getByRole('link', { name: 'Pens' }).click();
    await expect.poll(() => text(page, 'h1')).toBe('Pens');
    await page.getByRole('link', { name: 'Home' }).click();
    await page.goBack();
    await expect.poll(() => text(page, 'h1')).toBe('Pens');
    await page.locator('#remount').click();
    expect(await text(page, '#readiness')).toBe('ready');

    expect(pushJsRequests).toEqual([`${stack.siteUrl}/push.js`]);
    expect(await page.evaluate(() => document.querySelectorAll('script[src$="/push.js"]').length)).toBe(1);
    expect(pageErrors).toEqual([]);
  });

  it("optIn() from the button's click shows the prompt, Yes subscribes: the subscriber id is in the hook; tag() reaches the provider", async () => {
    await page.locator('#notify-me').click();
    const chicklet = page.locator('[data-pk="chicklet"]');
    await chicklet.waitFor({ state: 'visible' });
    // the browser's own permission prompt, which follows Yes, answered Allow
    await browser.context.grantPermissions(['notifications'], { origin: stack.siteUrl });
    await chicklet.locator('[data-pk-action="yes"]').click();
    await page.locator('#subscriber-id').waitFor({ timeout: 15_000 });
    const subscriberId = (await text(page, '#subscriber-id'))!;
    const { rows } = await stack.db.query<{ id: string; status: string }>('SELECT id, status FROM subscribers WHERE site_hash = $1', [
      stack.config.hash,
    ]);
    expect(rows).toEqual([{ id: subscriberId, status: 'subscribed' }]);

    await page.locator('#tag-gold').click();
    await expect.poll(() => tagsOf(stack.db, subscriberId)).toEqual({ plan: 'gold' });
    expect(pageErrors).toEqual([]);
  });

  it("after optOut(), the button's click (a trusted click being handled) offers the prompt again and Yes subscribes", async () => {
    await page.locator('#opt-out').click();
    await page.locator('#opted-out').waitFor();
    await expect.poll(() => syncActions.at(-1)).toBe('unsubscribe-ui');

    await page.locator('#notify-me').click();
    const chicklet = page.locator('[data-pk="chicklet"]');
    await chicklet.waitFor({ state: 'visible' });
    await chicklet.locator('[data-pk-action="yes"]').click();
    await page.locator('#opted-out').waitFor({ state: 'detached', timeout: 15_000 });
    const subscriberId = (await text(page, '#subscriber-id'))!;
    await expect
      .poll(async () => (await stack.db.query<{ status: string }>('SELECT status FROM subscribers WHERE id = $1', [subscriberId])).rows)
      .toEqual([{ status: 'subscribed' }]);
    expect(pushJsRequests).toHaveLength(1);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("readiness is 'failed' when push.js does not load", async () => {
    const failing = await browser.context.newPage();
    await failing.route(`${stack.siteUrl}/push.js`, (route) => route.abort());
    await failing.goto(`${stack.siteUrl}/react/`);
    await expect.poll(() => text(failing, '#readiness')).toBe('failed');
    await failing.close();
  });
});
