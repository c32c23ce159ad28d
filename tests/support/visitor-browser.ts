// One visitor of a built site: the site and the provider (stack.ts) and a Chromium profile (browser.ts) that can
// subscribe for real through the fake GCM check-in (fake-gcm.ts), the notification permission granted or not.
import type { BrowserContext } from 'playwright-core';
import { allStarted, borrowChromium, type TestBrowser } from './browser.ts';
import { sharedFakeGcm, type FakeGcm } from './fake-gcm.ts';
import { startStack, type Stack, type StackOptions } from './stack.ts';

export interface VisitorBrowser {
  stack: Stack;
  context: BrowserContext;
  close(): Promise<void>;
}

export async function startVisitorBrowser(
  options: { stack?: StackOptions; push?: boolean; grant?: boolean } = {},
): Promise<VisitorBrowser> {
  // the provider and Chromium start side by side; on a failure, whatever started is closed
  let gcm: FakeGcm | undefined;
  const starting = startStack(options.stack);
  const launching = (async () => {
    if (options.push !== false) gcm = await sharedFakeGcm();
    return borrowChromium(gcm?.chromiumArgs ?? []);
  })();
  let stack: Stack;
  let browser: TestBrowser;
  try {
    await allStarted([starting, launching]);
    [stack, browser] = [await starting, await launching];
    if (options.grant) await browser.context.grantPermissions(['notifications'], { origin: stack.siteUrl });
  } catch (error) {
    await (await launching.catch(() => undefined))?.close();
    await gcm?.close();
    await (await starting.catch(() => undefined))?.close();
    throw error;
  }
  return {
    stack,
    context: browser.context,
    async close() {
      await browser.close();
      await gcm?.close();
      await stack.close();
    },
  };
}
