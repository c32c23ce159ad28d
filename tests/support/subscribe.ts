import type { Page } from 'playwright-core';

export interface SubscribeOutcome {
  subscriberId: string;
  result: { status: string; message: string };
}

/**
 * Subscribes the way a visitor does: registers the success and failure callbacks, asks through the public
 * API (`triggerOptIn`) and answers "Yes" on the soft prompt when the site shows one before the browser's.
 */
export async function subscribeThroughApi(page: Page): Promise<SubscribeOutcome> {
  const outcome = page.evaluate(
    () =>
      new Promise<SubscribeOutcome>((resolve, reject) => {
        const queue = (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit;
        queue.push([
          'subscriptionSuccessCallback',
          (subscriberId: string, result: SubscribeOutcome['result']) => resolve({ subscriberId, result }),
        ]);
        queue.push([
          'subscriptionFailureCallback',
          (result: SubscribeOutcome['result']) => reject(new Error(`${result.status}: ${result.message}`)),
        ]);
        queue.push(['triggerOptIn']);
      }),
  );
  // a visitor who already granted the permission is subscribed without the soft prompt
  await answerYesUntil(page, outcome);
  return outcome;
}

/**
 * Answers "Yes" on the soft prompt whenever it shows, until `outcome` settles: the prompt may come long after the call
 * on a loaded machine (it waits on push.js's chunk), and a fixed 3 s for it left tests to time out. Nothing waits
 * for, or clicks, a prompt once the outcome is known (a later prompt of the same test is the test's own).
 */
export async function answerYesUntil(page: Page, outcome: Promise<unknown>): Promise<void> {
  const yes = page.locator('[data-pk-action="yes"]:visible').first();
  let settled = false;
  const done = outcome.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    const shown = await Promise.race([
      done.then(() => false),
      yes.waitFor({ timeout: 500 }).then(
        () => true,
        () => false,
      ),
    ]);
    if (shown && !settled) {
      await yes.click().catch(() => undefined);
      return;
    }
  }
}
