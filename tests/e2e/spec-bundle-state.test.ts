// Issue 18: stored state read back by the built push.js in Debian's Chromium (a real pushManager.subscribe()
// with the fake GCM check-in) against the real provider, for rules unit tests proved on the runtime modules in
// happy-dom: an edited or corrupted stored value counts as absent (section 3), so a subscriber whose stored id
// was tampered with sends insert (the update decision's second step, section 4) and gets its own id back; the
// update decision's five steps are taken in order (each with the conditions of every later step also holding); and
// a subscriber without a local consent value asks the provider for it once (section 7).
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribeThroughApi } from '../support/subscribe.ts';
import type { Stack } from '../support/stack.ts';
import { startVisitorBrowser, type VisitorBrowser } from '../support/visitor-browser.ts';

let visitor: VisitorBrowser;
let stack: Stack;
let context: BrowserContext;
let subscriberId: string;
/** A page of the site's origin without push.js, open for the whole file: where a view's stored state is edited. */
let setup: Page;

beforeAll(async () => {
  visitor = await startVisitorBrowser({ grant: true });
  ({ stack, context } = visitor);
  const page = await context.newPage();
  await page.goto(`${stack.siteUrl}/`);
  ({ subscriberId } = await subscribeThroughApi(page));
  await page.close();
  setup = await context.newPage();
  await setup.goto(`${stack.siteUrl}/favicon.ico`);
});
afterAll(async () => {
  await visitor?.close();
});

interface View {
  page: Page;
  /** Requests to the provider: path, and the sync's action and previous subscription id. */
  calls: { path: string; action: string | null; previousSubscriptionId: string | null; query: Record<string, string> }[];
  /** When push.js had done the view's work (Date.now()), and its calls then. */
  doneAt: number;
  callsWhenDone: View['calls'];
}

/**
 * How long a view is watched for a provider call after its work is done, as `networkidle`'s 500 ms without a
 * request did; the test goes on with its next view meanwhile (closeView).
 */
const WATCH_MS = 500;

/**
 * A view after `edit` ran on the stored state; waits until push.js has done its view's work (the sync and the
 * consent read are awaited before `pushkit.ready`).
 */
async function viewAfter(edit: (page: Page) => Promise<void>): Promise<View> {
  await edit(setup);
  const page = await context.newPage();
  const calls: View['calls'] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(stack.providerUrl)) return;
    const form = new URLSearchParams(request.postData() ?? '');
    calls.push({
      path: new URL(request.url()).pathname,
      action: form.get('action'),
      previousSubscriptionId: form.get('previousSubscriptionId'),
      query: Object.fromEntries(new URL(request.url()).searchParams),
    });
  });
  await page.goto(`${stack.siteUrl}/`);
  await page.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
  await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
  return { page, calls, doneAt: Date.now(), callsWhenDone: [...calls] };
}

/** Closes a view once it was watched WATCH_MS past its work: no provider call came after it. */
async function closeView(view: View): Promise<void> {
  const left = view.doneAt + WATCH_MS - Date.now();
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  expect(view.calls, 'a provider call after the view had done its work').toEqual(view.callsWhenDone);
  await view.page.close();
}

/** Views one after another, each closed (closeView) once the next has been checked: their watches overlap. */
function viewsInTurn() {
  let previous: View | undefined;
  return {
    async done(view: View): Promise<void> {
      const last = previous;
      previous = view;
      if (last) await closeView(last);
    },
    async end(): Promise<void> {
      if (previous) await closeView(previous);
      previous = undefined;
    },
  };
}

const stored = (page: Page, key: string) => page.evaluate((key) => localStorage.getItem(key), key);
const subscriberCount = async () =>
  Number((await stack.db.query<{ count: string }>('SELECT count(*) AS count FROM subscribers')).rows[0]!.count);

describe('stored state, read back by the built push.js', () => {
  it('an in-sync subscriber makes no call; a tampered stored id counts as absent: insert, and its own id comes back', async () => {
    const views = viewsInTurn();
    const quiet = await viewAfter(async () => undefined);
    expect(quiet.calls).toEqual([]);
    // push.js's core alone: no chunk beside it is fetched on an in-sync view
    const bundleFiles = await quiet.page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((entry) => new URL(entry.name).pathname)
        .filter((path) => path.startsWith('/push')),
    );
    expect(bundleFiles).toEqual(['/push.js']);
    await views.done(quiet);

    const before = await subscriberCount();
    for (const edited of ['-1', 'null', '<img src=x onerror=alert(1)>', ' '.repeat(3), 'x'.repeat(300)]) {
      const view = await viewAfter((page) => page.evaluate((value) => localStorage.setItem('wingify_push_subscriber_id', value), edited));
      expect(
        view.calls.filter((call) => call.path === '/syncSubscriptionAction.php').map((call) => call.action),
        JSON.stringify(edited),
      ).toEqual(['insert']);
      expect(await stored(view.page, 'wingify_push_subscriber_id')).toBe(subscriberId);
      expect(await stored(view.page, 'wingify_push_db_status')).toBe('true');
      await views.done(view);
    }
    await views.end();
    expect(await subscriberCount()).toBe(before);
  });

  it('the update decision takes its five steps in order: the first that holds decides, and its sync brings the state back in line', async () => {
    const views = viewsInTurn();
    const first = await viewAfter(async () => undefined);
    const storedSubscriptionId = await stored(first.page, 'wingify_push_subscription_id');
    const endpoint = await stored(first.page, 'wingify_push_subscription_endpoint');
    await views.done(first);
    const set = (entries: Record<string, string | null>) => (page: Page) =>
      page.evaluate((entries) => {
        for (const [key, value] of Object.entries(entries)) {
          if (value === null) localStorage.removeItem(key);
          else localStorage.setItem(key, value);
        }
      }, entries);
    // Each row makes the conditions of its step and of every later step hold at once (spec section 4).
    const staleEndpoint = 'https://push.example/stale-endpoint';
    const rows: [string, Record<string, string | null>, string][] = [
      [
        '1. db status false',
        {
          wingify_push_db_status: 'false',
          wingify_push_subscriber_id: null,
          wingify_push_subscription_endpoint: staleEndpoint,
          wingify_push_subscriber_lang: 'fr-FR',
        },
        'insert-failed',
      ],
      [
        '2. same id, no subscriber id',
        { wingify_push_subscriber_id: null, wingify_push_subscription_endpoint: staleEndpoint, wingify_push_subscriber_lang: 'fr-FR' },
        'insert',
      ],
      [
        '3. endpoint differs, a previous id exists',
        { wingify_push_subscription_endpoint: staleEndpoint, wingify_push_subscriber_lang: 'fr-FR' },
        'update-google-registration-id',
      ],
      [
        '3. id differs, a previous id exists',
        { wingify_push_subscription_id: 'old-registration-id', wingify_push_subscriber_lang: 'fr-FR' },
        'update-google-registration-id',
      ],
      ['3. id differs, no previous id', { wingify_push_subscription_id: null, wingify_push_subscriber_lang: 'fr-FR' }, 'update'],
      ['4. only the language differs', { wingify_push_subscriber_lang: 'fr-FR' }, 'http-sync'],
    ];
    const sent: Record<string, string[]> = {};
    for (const [step, entries, expected] of rows) {
      const view = await viewAfter(set(entries));
      const syncs = view.calls.filter((call) => call.path === '/syncSubscriptionAction.php');
      sent[step] = syncs.map((call) => call.action ?? '');
      // "with a previous id": the one stored before this view
      if (expected === 'update-google-registration-id') {
        expect(syncs[0]?.previousSubscriptionId, step).toBe(entries.wingify_push_subscription_id ?? storedSubscriptionId);
      }
      expect(await stored(view.page, 'wingify_push_subscriber_id')).toBe(subscriberId);
      expect(await stored(view.page, 'wingify_push_subscription_endpoint')).toBe(endpoint);
      expect(await stored(view.page, 'wingify_push_subscription_id')).toBe(storedSubscriptionId);
      await views.done(view);
      // 5. nothing differs: already-updated, no call
      const quiet = await viewAfter(async () => undefined);
      expect(quiet.calls, step).toEqual([]);
      await views.done(quiet);
    }
    await views.end();
    expect(sent).toEqual(Object.fromEntries(rows.map(([step, , expected]) => [step, [expected]])));
    const { rows: provider } = await stack.db.query<{ endpoint: string; status: string }>(
      'SELECT endpoint, status FROM subscribers WHERE id = $1',
      [subscriberId],
    );
    expect(provider).toEqual([{ endpoint, status: 'subscribed' }]);
  });

  it('a subscriber without a local consent value asks the provider once and keeps its answer', async () => {
    const views = viewsInTurn();
    await stack.db.query('UPDATE subscribers SET page_click_tracking_permission = 1 WHERE id = $1', [subscriberId]);
    const first = await viewAfter((page) => page.evaluate(() => localStorage.removeItem('wingify_donot_track_actions')));
    const asked = first.calls.filter((call) => call.path === '/getSubscriptionClickTrackingPermissionDetails.php');
    // section 7: customerHash, subscriberId and browser (and push-kit's subscriberSecret)
    expect(asked.map((call) => call.query)).toEqual([
      {
        customerHash: stack.config.hash,
        subscriberId,
        subscriberSecret: await stored(first.page, 'pushkit_subscriber_secret'),
        browser: 'chrome',
      },
    ]);
    expect(await stored(first.page, 'wingify_donot_track_actions')).toBe('0');
    await views.done(first);
    const again = await viewAfter(async () => undefined);
    expect(again.calls).toEqual([]);
    await views.done(again);

    // and the other way: the provider's 0 (no tracking) becomes "1" (do not track)
    await stack.db.query('UPDATE subscribers SET page_click_tracking_permission = 0 WHERE id = $1', [subscriberId]);
    const refused = await viewAfter((page) => page.evaluate(() => localStorage.removeItem('wingify_donot_track_actions')));
    expect(refused.calls.filter((call) => call.path === '/getSubscriptionClickTrackingPermissionDetails.php')).toHaveLength(1);
    expect(await stored(refused.page, 'wingify_donot_track_actions')).toBe('1');
    await views.done(refused);
    await views.end();
  });
});
