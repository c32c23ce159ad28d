// Issue 18: stored state read back by the built push.js in Debian's Chromium (a real pushManager.subscribe()
// with the fake GCM check-in) against the real provider, for rules unit tests proved on the runtime modules in
// happy-dom: an edited or corrupted stored value counts as absent (section 3), so a subscriber whose stored id
// was tampered with sends insert (the update decision's second step, section 4) and gets its own id back; and a
// subscriber without a local consent value asks the provider for it once (section 7).
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribeThroughApi } from '../support/subscribe.ts';
import type { Stack } from '../support/stack.ts';
import { startVisitorBrowser, type VisitorBrowser } from '../support/visitor-browser.ts';

let visitor: VisitorBrowser;
let stack: Stack;
let context: BrowserContext;
let subscriberId: string;

beforeAll(async () => {
  visitor = await startVisitorBrowser({ grant: true });
  ({ stack, context } = visitor);
  const page = await context.newPage();
  await page.goto(`${stack.siteUrl}/`);
  ({ subscriberId } = await subscribeThroughApi(page));
  await page.close();
});
afterAll(async () => {
  await visitor?.close();
});

interface View {
  page: Page;
  /** Requests to the provider: path, and the sync's action. */
  calls: { path: string; action: string | null }[];
}

/** A view after `edit` ran on the stored state; waits until push.js has done its view's work. */
async function viewAfter(edit: (page: Page) => Promise<void>): Promise<View> {
  const setup = await context.newPage();
  await setup.goto(`${stack.siteUrl}/favicon.ico`);
  await edit(setup);
  await setup.close();
  const page = await context.newPage();
  const calls: View['calls'] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(stack.providerUrl)) return;
    const action = new URLSearchParams(request.postData() ?? '').get('action');
    calls.push({ path: new URL(request.url()).pathname, action });
  });
  await page.goto(`${stack.siteUrl}/`);
  await page.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
  await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
  await page.waitForLoadState('networkidle');
  return { page, calls };
}

const stored = (page: Page, key: string) => page.evaluate((key) => localStorage.getItem(key), key);
const subscriberCount = async () =>
  Number((await stack.db.query<{ count: string }>('SELECT count(*) AS count FROM subscribers')).rows[0]!.count);

describe('stored state, read back by the built push.js', () => {
  it('an in-sync subscriber makes no call; a tampered stored id counts as absent: insert, and its own id comes back', async () => {
    const quiet = await viewAfter(async () => undefined);
    expect(quiet.calls).toEqual([]);
    await quiet.page.close();

    const before = await subscriberCount();
    for (const edited of ['-1', 'null', '<img src=x onerror=alert(1)>', ' '.repeat(3), 'x'.repeat(300)]) {
      const view = await viewAfter((page) => page.evaluate((value) => localStorage.setItem('wingify_push_subscriber_id', value), edited));
      expect(
        view.calls.filter((call) => call.path === '/syncSubscriptionAction.php').map((call) => call.action),
        JSON.stringify(edited),
      ).toEqual(['insert']);
      expect(await stored(view.page, 'wingify_push_subscriber_id')).toBe(subscriberId);
      expect(await stored(view.page, 'wingify_push_db_status')).toBe('true');
      await view.page.close();
    }
    expect(await subscriberCount()).toBe(before);
  });

  it('a subscriber without a local consent value asks the provider once and keeps its answer', async () => {
    await stack.db.query('UPDATE subscribers SET page_click_tracking_permission = 1 WHERE id = $1', [subscriberId]);
    const first = await viewAfter((page) => page.evaluate(() => localStorage.removeItem('wingify_donot_track_actions')));
    expect(first.calls.filter((call) => call.path === '/getSubscriptionClickTrackingPermissionDetails.php')).toHaveLength(1);
    expect(await stored(first.page, 'wingify_donot_track_actions')).toBe('0');
    await first.page.close();
    const again = await viewAfter(async () => undefined);
    expect(again.calls).toEqual([]);
    await again.page.close();
  });
});
