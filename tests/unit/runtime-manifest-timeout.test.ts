// @vitest-environment happy-dom
// The manifest read of the subscribe retry (spec sections 4, 7 and 9) gives up after 2000 ms.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { site } from '../fixtures/site-module.ts';
import { startRuntime } from '../../runtime/api.ts';
import { inlineChunk } from '../support/inline-chunk.ts';
import type { OptInResult } from '../../runtime/messages.ts';
import { installBrowser, resetPage, settle } from '../support/runtime-test-browser.ts';

beforeEach(() => resetPage());
afterEach(() => vi.unstubAllGlobals());

it('a manifest that never answers: CANCELLED "Could Not Subscribe." after 2 s, without a second subscribe', async () => {
  const browser = installBrowser({ answer: 'granted', subscribeFailures: 1 });
  const answered = globalThis.fetch;
  vi.stubGlobal('fetch', (input: string, init?: RequestInit) =>
    String(input).includes('manifest') ? new Promise(() => {}) : answered(input, init),
  );
  const api = startRuntime(site, inlineChunk);
  let failure: OptInResult | undefined;
  let failedAt = 0;
  api.subscriptionFailureCallback((result) => {
    failure = result;
    failedAt = Date.now();
  });
  api.triggerOptIn();
  await settle();
  document.querySelector<HTMLElement>('#pushkit-prompts [data-pk]:not([hidden]) [data-pk-action="yes"]')!.click();
  const clickedAt = Date.now();
  await vi.waitFor(() => expect(failure).toBeDefined(), { timeout: 4000, interval: 20 });
  expect(failure).toEqual({ status: 'CANCELLED', message: 'Could Not Subscribe.' });
  expect(failedAt - clickedAt).toBeGreaterThanOrEqual(1900);
  expect(failedAt - clickedAt).toBeLessThan(3000);
  expect(browser.subscribeCalls).toHaveLength(1);
  expect(browser.syncCalls()).toEqual([]);
});
