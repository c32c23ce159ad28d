// Whether the built push.js offered the subscription on a view: its opt-in-shown callback, queued before it loads.
import type { BrowserContext, Page } from 'playwright-core';

/**
 * Opens `url` (with this user agent, when given) and resolves when, after navigation, the offer was shown, or
 * null if it was not within `watchMs`. The page is left open for the caller.
 */
export async function offerShown(
  context: BrowserContext,
  url: string,
  watchMs: number,
  userAgent?: string,
): Promise<{ page: Page; shownAt: number | null }> {
  const page = await context.newPage();
  if (userAgent) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setUserAgentOverride', { userAgent });
  }
  await page.addInitScript(() => {
    const seen: number[] = [];
    (window as unknown as { shown: number[] }).shown = seen;
    (window as unknown as { pushkit: unknown[] }).pushkit = [['optInShownCallback', () => seen.push(performance.now())]];
  });
  await page.goto(url);
  await page.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
  const shownAt = await page
    .waitForFunction(() => (window as unknown as { shown: number[] }).shown[0], undefined, { timeout: watchMs })
    .then((handle) => handle.jsonValue() as Promise<number>)
    .catch(() => null);
  return { page, shownAt };
}
