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
  await Promise.race([
    page
      .locator('[data-pk-action="yes"]:visible')
      .first()
      .click({ timeout: 3000 })
      .catch(() => undefined),
    outcome.catch(() => undefined),
  ]);
  return outcome;
}
