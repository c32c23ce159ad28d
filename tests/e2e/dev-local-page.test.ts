// `push-kit dev` with an integrator's https production config, as they meet it: Chromium opens the local page
// dev serves, subscribes through the snippet's bundle, and the provider dev started stores the subscriber.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStarted, type TestBrowser } from '../support/browser.ts';
import { startDev, type DevProcess } from '../support/dev-process.ts';
import { borrowChromiumWithGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { tempDir } from '../support/server.ts';
import { subscribeThroughApi } from '../support/subscribe.ts';

const BIN = fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url));
const PRODUCTION_CONFIG = {
  hash: 'production-shop-01',
  companyName: 'Production Shop',
  origin: 'https://www.production-shop.example',
  serverSyncUrl: 'https://push.production-shop.example',
  vapidPublicKey: 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s',
};

let dir: { path: string; remove: () => Promise<void> };
let dev: DevProcess;
let gcm: FakeGcm;
let browser: TestBrowser;

beforeAll(async () => {
  dir = await tempDir('pushkit-dev-e2e-');
  await writeFile(join(dir.path, 'shop.json'), JSON.stringify(PRODUCTION_CONFIG));
  // `push-kit dev` and Chromium start side by side; whatever started is stopped in afterAll
  await allStarted([
    startDev([process.execPath, BIN, 'dev', 'shop.json', '--port', '0', '--site-port', '0'], dir.path).then((started) => (dev = started)),
    borrowChromiumWithGcm().then((started) => ({ gcm, browser } = started)),
  ]);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await gcm?.close();
  await dev?.stop();
  await dir?.remove();
});

describe("push-kit dev's local page", () => {
  it('subscribes a visitor with the production config rewritten to the local provider', async () => {
    await browser.context.grantPermissions(['notifications'], { origin: dev.site });
    const page = await browser.context.newPage();
    const syncUrls: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/syncSubscriptionAction.php')) syncUrls.push(request.url());
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await page.goto(`${dev.site}/`);
    const outcome = await subscribeThroughApi(page);

    expect(outcome.result).toEqual({ status: 'SUBSCRIBED', message: 'User has subscribed to push notifications.' });
    expect(syncUrls.length).toBeGreaterThan(0);
    for (const url of syncUrls) expect(url.startsWith(`${dev.provider}/`)).toBe(true);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 60_000);
});
