// Issue 18: trigger events persisted for the session or longer (spec section 4), through the built push.js in
// Debian's Chromium. The offer waits for a click on the page's subscribe button; with `persist: 'session'` a
// click on one view counts on the next views of the browser session (a session cookie) and not in a new
// session, with `'always'` also in a new session (localStorage), and with `'page'` (the default) only on the
// view where it happened.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { borrowChromium, type TestBrowser } from '../support/browser.ts';
import { offerShown } from '../support/offer.ts';
import { startStacks, type Stack } from '../support/stack.ts';

const PERSISTS = ['page', 'session', 'always'] as const;

let browser: TestBrowser;
/** One site (its own build and origin) per persist value, all on one provider. */
const stacks = {} as Record<(typeof PERSISTS)[number], Stack>;

beforeAll(async () => {
  const [launched, started] = await Promise.all([
    borrowChromium(),
    startStacks(PERSISTS.map((persist) => ({ overrides: { triggers: { when: 'click', clickSelector: '#subscribe-button', persist } } }))),
  ]);
  browser = launched;
  PERSISTS.forEach((persist, index) => (stacks[persist] = started[index]!));
});
afterAll(async () => {
  await browser?.close();
  for (const stack of Object.values(stacks)) await stack.close();
});

/** Whether the offer was shown on a view of the site within `watchMs`, the page untouched. */
async function offered(stack: Stack, watchMs: number): Promise<{ page: Page; shown: boolean }> {
  const { page, shownAt } = await offerShown(browser.context, `${stack.siteUrl}/`, watchMs);
  return { page, shown: shownAt !== null };
}

/** The end of the browser session: its session cookies go, the rest stays. */
async function newBrowserSession(stack: Stack): Promise<void> {
  for (const cookie of await browser.context.cookies(stack.siteUrl)) {
    if (cookie.expires === -1) await browser.context.clearCookies({ name: cookie.name });
  }
}

describe('trigger events persisted for the session or longer, through the built push.js', () => {
  for (const [persist, nextView, nextSession] of [
    ['page', false, false],
    ['session', true, false],
    ['always', true, true],
  ] as const) {
    it(`persist ${persist}: a click counts on the next view ${nextView ? 'too' : 'no more'}, in a new session ${nextSession ? 'too' : 'no more'}`, async () => {
      const stack = stacks[persist];
      const first = await offered(stack, 1000);
      expect(first.shown, 'nothing before the click').toBe(false);
      await first.page.locator('#subscribe-button').click();
      await first.page.waitForFunction(() => (window as unknown as { shown: number[] }).shown.length > 0);
      await first.page.close();

      const next = await offered(stack, nextView ? 5000 : 1000);
      expect(next.shown, 'the next view of the session').toBe(nextView);
      await next.page.close();

      await newBrowserSession(stack);
      const later = await offered(stack, nextSession ? 5000 : 1000);
      expect(later.shown, 'a view in a new browser session').toBe(nextSession);
      await later.page.close();
    });
  }
});
