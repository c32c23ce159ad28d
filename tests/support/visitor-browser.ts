// One visitor of a built site: the site and the provider (stack.ts) and a Chromium profile (browser.ts) that can
// subscribe for real through the fake GCM check-in (fake-gcm.ts), the notification permission granted or not.
import type { BrowserContext } from 'playwright-core';
import { launchPersistentChromium, type TestBrowser } from './browser.ts';
import { startFakeGcm, type FakeGcm } from './fake-gcm.ts';
import { startStack, type Stack, type StackOptions } from './stack.ts';

export interface VisitorBrowser {
  stack: Stack;
  context: BrowserContext;
  close(): Promise<void>;
}

export async function startVisitorBrowser(
  options: { stack?: StackOptions; push?: boolean; grant?: boolean } = {},
): Promise<VisitorBrowser> {
  const stack = await startStack(options.stack);
  let gcm: FakeGcm | undefined;
  let browser: TestBrowser | undefined;
  try {
    if (options.push !== false) gcm = await startFakeGcm();
    browser = await launchPersistentChromium(gcm?.chromiumArgs ?? []);
    if (options.grant) await browser.context.grantPermissions(['notifications'], { origin: stack.siteUrl });
  } catch (error) {
    await browser?.close();
    await gcm?.close();
    await stack.close();
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
