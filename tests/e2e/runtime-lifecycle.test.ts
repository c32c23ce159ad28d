// Issue 3's end-to-end checks: the subscriber lifecycle of spec section 4 in the built calligraphy push.js on
// the example site, in Debian's Chromium with a real pushManager.subscribe() (fake GCM check-in), against the
// real provider. Each test asserts what the provider received (requests and its database) and what the page
// keeps in its storage. The tests share one browser profile and run in order: each starts from the state
// the previous one left, as one visitor would.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStarted, type TestBrowser } from '../support/browser.ts';
import { borrowChromiumWithGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { answerYesUntil, subscribeThroughApi } from '../support/subscribe.ts';

// A time zone other than the machine's and UTC, so the payload's zone and offset prove they are read.
const TIME_ZONE = 'Asia/Tokyo';
const TIME_ZONE_OFFSET = '-540';
const LOCALE = 'en-GB';
const SYNC_FIELDS = [
  'hash',
  'subscription',
  'subscriberId',
  'previousSubscriptionId',
  'subscriptionId',
  'subscriptionEndPoint',
  'action',
  'origin',
  'firefoxEncryptionKey',
  'browserType',
  'userLanguage',
  'userTimezoneOffset',
  'userTimezone',
  'websitePushId',
  'vapidPublicKey',
  'subscriptionDomainUrl',
  'serviceWorkerPath',
  'subscriptionPageUrl',
  'pageClickTrackingPermission',
  'gcmSenderId',
];

let stack: Stack;
let gcm: FakeGcm;
let context: BrowserContext;
let browser: TestBrowser;

beforeAll(async () => {
  // the provider and Chromium start side by side; whatever started is closed in afterAll
  await allStarted([
    startStack().then((started) => (stack = started)),
    borrowChromiumWithGcm({ locale: LOCALE, timezoneId: TIME_ZONE }).then((started) => ({ gcm, browser } = started)),
  ]);
  context = browser.context;
});
afterAll(async () => {
  await browser?.close();
  await gcm?.close();
  await stack?.close();
});

interface View {
  page: Page;
  /** Every request the page made to the provider, in order. */
  providerRequests: { url: string; method: string; body: URLSearchParams }[];
  /** The sync calls (syncSubscriptionAction.php) among them. */
  syncs(): URLSearchParams[];
  /** The provider's replies to the sync calls: the call's action and the reply's body. */
  syncReplies: { action: string | null; body: unknown }[];
  dialogs: string[];
  pageErrors: string[];
  storage(): Promise<Record<string, string | null>>;
}

interface ViewOptions {
  /** Overrides navigator.language(s) before any script of the page runs. */
  language?: string;
  /** Makes every sync request fail as if the provider were unreachable. */
  syncDown?: boolean;
  /** Makes the update-subscriberId sync fail as if the provider were unreachable; other syncs go through. */
  linkDown?: boolean;
}

/** One page view: opens `path`, records the provider traffic and waits until push.js has finished its sync. */
async function view(path: string, options: ViewOptions = {}): Promise<View> {
  const page = await context.newPage();
  const providerRequests: View['providerRequests'] = [];
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  const syncReplies: View['syncReplies'] = [];
  page.on('response', (response) => {
    if (!response.url().endsWith('/syncSubscriptionAction.php')) return;
    const action = new URLSearchParams(response.request().postData() ?? '').get('action');
    void response.json().then(
      (body: unknown) => syncReplies.push({ action, body }),
      () => syncReplies.push({ action, body: null }),
    );
  });
  page.on('request', (request) => {
    if (request.url().startsWith(stack.providerUrl)) {
      providerRequests.push({ url: request.url(), method: request.method(), body: new URLSearchParams(request.postData() ?? '') });
    }
  });
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  if (options.language) {
    await page.addInitScript((language) => {
      Object.defineProperty(Navigator.prototype, 'language', { get: () => language, configurable: true });
      Object.defineProperty(Navigator.prototype, 'languages', { get: () => [language], configurable: true });
    }, options.language);
  }
  if (options.syncDown) await page.route('**/syncSubscriptionAction.php', (route) => route.abort('connectionrefused'));
  if (options.linkDown) {
    await page.route('**/syncSubscriptionAction.php', (route) =>
      new URLSearchParams(route.request().postData() ?? '').get('action') === 'update-subscriberId'
        ? route.abort('connectionrefused')
        : route.continue(),
    );
  }
  await page.goto(`${stack.siteUrl}${path}`);
  await page.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
  await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
  return {
    page,
    providerRequests,
    syncs: () => providerRequests.filter((request) => request.url.endsWith('/syncSubscriptionAction.php')).map((request) => request.body),
    dialogs,
    pageErrors,
    syncReplies,
    storage: () =>
      page.evaluate(() => {
        const keys = [
          'wingify_push_subscriber_id',
          'pushkit_subscriber_secret',
          'wingify_push_subscription_id',
          'wingify_push_subscription_endpoint',
          'wingify_push_subscription_status',
          'wingify_push_db_status',
          'wingify_push_subscriber_lang',
          'wingify_push_do_not_show_notification_popup',
          'pshcrw_v_k',
        ];
        return Object.fromEntries(keys.map((key) => [key, localStorage.getItem(key)]));
      }),
  };
}

async function subscriberRow(id: string) {
  const { rows } = await stack.db.query<{
    status: string;
    language: string;
    timezone: string;
    timezone_offset: number;
    browser_type: string;
    uuid: string | null;
    endpoint: string | null;
  }>('SELECT status, language, timezone, timezone_offset, browser_type, uuid, endpoint FROM subscribers WHERE site_hash = $1 AND id = $2', [
    stack.config.hash,
    id,
  ]);
  return rows[0];
}

async function cookie(name: string): Promise<string | undefined> {
  return (await context.cookies(stack.siteUrl)).find((entry) => entry.name === name)?.value;
}

/** Forgets everything the site stored in this browser, and its push subscription, as a fresh visitor. */
async function forgetVisitor(page: Page): Promise<void> {
  await page.evaluate(async () => {
    localStorage.clear();
    const registration = await navigator.serviceWorker.getRegistration();
    await (await registration?.pushManager.getSubscription())?.unsubscribe();
  });
  await context.clearCookies();
}

let subscriberId = '';

describe('the subscriber lifecycle in Chromium against the real provider', () => {
  it('a visitor who refuses permission gets BLOCKED and the do-not-show flag, and only the block event is synced', async () => {
    const visit = await view('/');
    const failure = visit.page.evaluate(
      () =>
        new Promise<{ status: string; message: string }>((resolve) => {
          const queue = (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit;
          queue.push(['subscriptionFailureCallback', resolve]);
          queue.push(['triggerOptIn']);
        }),
    );
    await answerYesUntil(visit.page, failure);

    expect(await failure).toEqual({ status: 'BLOCKED', message: 'User has blocked push notifications.' });
    const stored = await visit.storage();
    expect(Number(stored.wingify_push_do_not_show_notification_popup)).toBeGreaterThan(Date.now() + 86_400_000);
    expect(stored.wingify_push_subscription_status).toBe('blocked');
    // the only sync is push-kit's block event ("a block event is tracked"): no subscriber is stored
    await expect.poll(() => visit.syncs().map((body) => body.get('action'))).toEqual(['block']);
    expect(visit.pageErrors).toEqual([]);
    await forgetVisitor(visit.page);
    await visit.page.close();
  });

  it('subscribing sends insert with every field of the section 3 payload, and the provider stores the subscriber', async () => {
    await context.grantPermissions(['notifications'], { origin: stack.siteUrl });
    const visit = await view('/');
    const outcome = await subscribeThroughApi(visit.page);
    subscriberId = outcome.subscriberId;

    expect(outcome.result).toEqual({ status: 'SUBSCRIBED', message: 'User has subscribed to push notifications.' });
    const [insert, ...others] = visit.syncs();
    expect(others).toEqual([]);
    expect(insert!.get('action')).toBe('insert');
    for (const field of SYNC_FIELDS) expect(insert!.has(field), field).toBe(true);
    const subscription = JSON.parse(insert!.get('subscription')!) as { endpoint: string; keys: { p256dh: string; auth: string } };
    expect(subscription.endpoint).toMatch(/^https:\/\/jmt17\.google\.com\/fcm\/send\//);
    expect(subscription.keys.p256dh).toMatch(/^[\w-]{80,}$/);
    expect(Object.fromEntries(insert!)).toMatchObject({
      hash: stack.config.hash,
      subscriberId: '',
      previousSubscriptionId: '',
      subscriptionId: subscription.endpoint.slice(subscription.endpoint.lastIndexOf('/') + 1),
      subscriptionEndPoint: subscription.endpoint,
      origin: stack.siteUrl,
      firefoxEncryptionKey: '',
      browserType: 'chrome',
      userLanguage: LOCALE,
      userTimezoneOffset: TIME_ZONE_OFFSET,
      userTimezone: TIME_ZONE,
      websitePushId: '',
      vapidPublicKey: stack.config.vapidPublicKey,
      subscriptionDomainUrl: stack.siteUrl,
      serviceWorkerPath: expect.stringMatching(/\.js$/),
      subscriptionPageUrl: `${stack.siteUrl}/`,
      pageClickTrackingPermission: expect.stringMatching(/^[01]$/),
      gcmSenderId: '',
    });

    expect(await subscriberRow(subscriberId)).toMatchObject({
      status: 'subscribed',
      browser_type: 'chrome',
      language: LOCALE,
      timezone: TIME_ZONE,
      timezone_offset: Number(TIME_ZONE_OFFSET),
    });
    expect(await visit.storage()).toMatchObject({
      wingify_push_subscriber_id: subscriberId,
      pushkit_subscriber_secret: expect.stringMatching(/^[\w-]{43}$/),
      wingify_push_subscription_id: insert!.get('subscriptionId'),
      wingify_push_subscription_endpoint: subscription.endpoint,
      wingify_push_subscription_status: 'subscribed',
      wingify_push_db_status: 'true',
      wingify_push_subscriber_lang: LOCALE,
      pshcrw_v_k: stack.config.vapidPublicKey,
    });
    expect(visit.pageErrors).toEqual([]);
    await visit.page.close();
  });

  it('a later view of an up-to-date subscriber (already-updated) makes no sync call and no provider request at all', async () => {
    const visit = await view('/');
    await visit.page.waitForTimeout(300);
    expect(visit.providerRequests).toEqual([]);
    expect(await visit.storage()).toMatchObject({ wingify_push_subscriber_id: subscriberId, wingify_push_db_status: 'true' });
    await visit.page.close();
  });

  it('a view in another browser language sends http-sync and the provider records the new language', async () => {
    const visit = await view('/', { language: 'de-DE' });
    const syncs = visit.syncs();
    expect(syncs.map((sync) => sync.get('action'))).toEqual(['http-sync']);
    expect(syncs[0]!.get('subscriberId')).toBe(subscriberId);
    expect(syncs[0]!.get('userLanguage')).toBe('de-DE');
    expect((await subscriberRow(subscriberId))?.language).toBe('de-DE');
    expect((await visit.storage()).wingify_push_subscriber_lang).toBe('de-DE');
    await visit.page.close();
  });

  it('a sync that fails while the provider is down stores db status false, and the next view retries with insert-failed', async () => {
    const down = await view('/', { language: 'fr-FR', syncDown: true });
    expect(down.syncs().map((sync) => sync.get('action'))).toEqual(['http-sync']);
    expect((await down.storage()).wingify_push_db_status).toBe('false');
    expect((await subscriberRow(subscriberId))?.language).toBe('de-DE');
    await down.page.close();

    const back = await view('/', { language: 'fr-FR' });
    const syncs = back.syncs();
    expect(syncs.map((sync) => sync.get('action'))).toEqual(['insert-failed']);
    expect(syncs[0]!.get('subscriberId')).toBe(subscriberId);
    expect(await back.storage()).toMatchObject({
      wingify_push_db_status: 'true',
      wingify_push_subscriber_id: subscriberId,
      wingify_push_subscriber_lang: 'fr-FR',
    });
    expect(await subscriberRow(subscriberId)).toMatchObject({ status: 'subscribed', language: 'fr-FR' });
    await back.page.close();
  });

  it('a uuid in the URL is adopted into the uuid cookie and linked to the stored subscriber with update-subscriberId', async () => {
    const uuid = '3f2b6c1e-8d4a-4f1b-9c7e-2a5d8e6f0b14';
    const visit = await view(`/?uuid=${uuid}`, { language: 'fr-FR' });
    const links = visit.syncs().filter((sync) => sync.get('action') === 'update-subscriberId');
    expect(links.map((link) => Object.fromEntries(link))).toEqual([
      {
        hash: stack.config.hash,
        browserType: 'chrome',
        previousSubscriberId: subscriberId,
        subscriberId: uuid,
        subscriberSecret: (await visit.storage()).pushkit_subscriber_secret,
        action: 'update-subscriberId',
      },
    ]);
    expect(await cookie('_wingify_pc_uuid')).toBe(uuid);
    // its reply has a status (section 7)
    await expect
      .poll(() => visit.syncReplies.filter((reply) => reply.action === 'update-subscriberId'))
      .toEqual([{ action: 'update-subscriberId', body: expect.objectContaining({ status: 'success' }) }]);
    expect((await subscriberRow(subscriberId))?.uuid).toBe(uuid);
    expect(await visit.page.evaluate(() => localStorage.getItem('pshcrw_update_subId'))).toBeNull();
    await visit.page.close();
  });

  it('a link that fails is stored as the pair (pshcrw_update_subId) and sent again by the next view, which clears it', async () => {
    const uuid = '9a1c4e27-5b3d-4c8e-a6f0-7d2b9e41c358';
    const failed = await view(`/?uuid=${uuid}`, { language: 'fr-FR', linkDown: true });
    await expect
      .poll(() => failed.page.evaluate(() => localStorage.getItem('pshcrw_update_subId')))
      .toBe(JSON.stringify({ previousSubscriberId: subscriberId, subscriberId: uuid }));
    expect(failed.syncs().map((sync) => sync.get('action'))).toEqual(['update-subscriberId']);
    expect(await cookie('_wingify_pc_uuid')).toBe(uuid);
    expect((await subscriberRow(subscriberId))?.uuid).not.toBe(uuid);
    await failed.page.close();

    const next = await view('/', { language: 'fr-FR' });
    const links = next.syncs().filter((sync) => sync.get('action') === 'update-subscriberId');
    expect(links.map((link) => [link.get('previousSubscriberId'), link.get('subscriberId')])).toEqual([[subscriberId, uuid]]);
    expect((await subscriberRow(subscriberId))?.uuid).toBe(uuid);
    expect(await next.page.evaluate(() => localStorage.getItem('pshcrw_update_subId'))).toBeNull();
    await next.page.close();

    const after = await view('/', { language: 'fr-FR' });
    expect(after.syncs()).toEqual([]);
    await after.page.close();
  });

  it('a takeover link (?uuid=attacker) opened by the subscribed visitor leaves the subscription theirs (issue 17, item 1)', async () => {
    const before = await subscriberRow(subscriberId);
    const visit = await view('/?uuid=attacker-uuid', { language: 'fr-FR' });
    await visit.page.close();
    // The attacker, from its own machine (no Origin header), asks for the subscriber behind its uuid...
    const sync = (fields: Record<string, string>) =>
      fetch(`${stack.providerUrl}/syncSubscriptionAction.php`, {
        method: 'POST',
        body: new URLSearchParams({ hash: stack.config.hash, ...fields }),
      });
    const lookup = await sync({ action: 'get-subscriberid-from-server', uuid: 'attacker-uuid' });
    expect(lookup.status).toBe(404);
    expect(await lookup.text()).not.toContain(subscriberId);
    // ...and, knowing the id some other way, tries to move the subscription to its own endpoint (on a real push
    // service: another host is refused earlier still, by the push-service allowlist).
    const takeover = await sync({
      action: 'update',
      subscriberId,
      subscription: JSON.stringify({
        endpoint: 'https://fcm.googleapis.com/fcm/send/attacker-token-2',
        keys: { p256dh: 'BAttackerKey', auth: 'attackerAuth' },
      }),
    });
    expect(takeover.status).toBe(403);
    expect(((await takeover.json()) as { code: string }).code).toBe('E_SUBSCRIBER_SECRET_MISSING');
    expect((await subscriberRow(subscriberId))?.endpoint).toBe(before?.endpoint);
    // The visitor's own browser still syncs as before.
    const next = await view('/', { language: 'de-DE' });
    expect(next.syncs().map((call) => call.get('action'))).toEqual(['http-sync']);
    expect((await subscriberRow(subscriberId))?.language).toBe('de-DE');
    await next.page.close();
  });

  it('opting out by the pushkit_opt_out query parameter alerts, sets the cookie flag and unsubscribes; a second time says already opted out', async () => {
    const first = await view('/?pushkit_opt_out', { language: 'fr-FR' });
    expect(first.dialogs).toEqual(['You have successfully opted out of the product for this website']);
    expect(await cookie('pushkit_opt_out')).toBe('1');
    const unsubscribe = first.syncs().find((sync) => sync.get('action') === 'unsubscribe-ui');
    expect(unsubscribe?.get('subscriberId')).toBe(subscriberId);
    expect((await subscriberRow(subscriberId))?.status).toBe('unsubscribed');
    // sync outcome (section 4): an unsubscribe clears the stored subscriber data and saves no subscription id or endpoint
    expect(await first.storage()).toMatchObject({
      wingify_push_subscriber_id: null,
      pushkit_subscriber_secret: null,
      wingify_push_subscription_id: null,
      wingify_push_subscription_endpoint: null,
      wingify_push_subscription_status: 'unsubscribed',
    });
    expect(
      await first.page.evaluate(async () => !!(await (await navigator.serviceWorker.getRegistration())?.pushManager.getSubscription())),
    ).toBe(false);
    expect(await first.page.evaluate(() => (window as unknown as { pushkit: { isOptedOut(): boolean } }).pushkit.isOptedOut())).toBe(true);
    await first.page.close();

    const second = await view('/?pushkit_opt_out');
    expect(second.dialogs).toEqual(['You are already opted out of the product for this website']);
    expect(second.syncs()).toEqual([]);
    await forgetVisitor(second.page);
    await second.page.close();
  });

  it("after triggerOptOut, a triggerOptIn the page makes on its own changes nothing; the visitor's own click offers the prompt and Yes subscribes again", async () => {
    const subscribing = await view('/');
    const { subscriberId: optedOut } = await subscribeThroughApi(subscribing.page);
    await subscribing.page.evaluate(() => (window as unknown as { pushkit: { triggerOptOut(): void } }).pushkit.triggerOptOut());
    await expect.poll(() => cookie('pushkit_opt_out')).toBe('1');
    await expect.poll(async () => (await subscriberRow(optedOut))?.status).toBe('unsubscribed');
    await subscribing.page.close();

    // The page's own call, queued before push.js loads: no visitor's activation, so the opt-out holds.
    const onLoad = await context.newPage();
    await onLoad.addInitScript(() => {
      (window as unknown as { pushkit: unknown[] }).pushkit = [['triggerOptIn']];
    });
    await onLoad.goto(`${stack.siteUrl}/`);
    await onLoad.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
    await onLoad.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
    expect(await onLoad.locator('[data-pk="chicklet"]').isVisible()).toBe(false);
    expect(await cookie('pushkit_opt_out')).toBe('1');
    await onLoad.close();

    const visit = await view('/');
    // The permission is still granted, yet an opted-out visitor is never subscribed again without the prompt: the
    // click on the site's opt-in button (pushkit.optInButton) offers it, and its Yes subscribes.
    await visit.page.locator('#subscribe-button').click();
    const chicklet = visit.page.locator('[data-pk="chicklet"]');
    await chicklet.waitFor({ state: 'visible' });
    expect(visit.syncs()).toEqual([]);
    expect(await cookie('pushkit_opt_out')).toBe('1');
    await chicklet.locator('[data-pk-action="yes"]').click();
    await expect.poll(() => visit.syncs().map((sync) => sync.get('action'))).toEqual(['insert']);
    await expect.poll(() => cookie('pushkit_opt_out')).toBeUndefined();
    await expect.poll(() => visit.storage().then((stored) => stored.wingify_push_subscription_status)).toBe('subscribed');
    const { wingify_push_subscriber_id: again } = await visit.storage();
    expect((await subscriberRow(again!))?.status).toBe('subscribed');
    await forgetVisitor(visit.page);
    await visit.page.close();
  });

  it('permission revoked in the browser settings: the next view sends unsubscribe-native and the provider marks the subscriber unsubscribed', async () => {
    const subscribing = await view('/');
    const { subscriberId: again } = await subscribeThroughApi(subscribing.page);
    expect(subscribing.syncs().map((sync) => sync.get('action'))).toEqual(['insert']);
    await subscribing.page.close();

    await context.clearPermissions();
    const visit = await view('/');
    const syncs = visit.syncs();
    expect(syncs.map((sync) => sync.get('action'))).toEqual(['unsubscribe-native']);
    expect(syncs[0]!.get('subscriberId')).toBe(again);
    expect((await subscriberRow(again))?.status).toBe('unsubscribed');
    expect(await visit.storage()).toMatchObject({
      wingify_push_subscriber_id: null,
      wingify_push_subscription_id: null,
      wingify_push_subscription_endpoint: null,
      wingify_push_db_status: 'true',
    });
    expect(visit.pageErrors).toEqual([]);
    await visit.page.close();
  });
});
