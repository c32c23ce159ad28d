// @vitest-environment happy-dom
// The embed snippet (README, "In the browser"): calls queued on `window.pushkit = window.pushkit || []` run once
// push.js loads, then `window.pushkit` is the API and its push keeps working.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { site } from '../fixtures/site-module.ts';
import { installBrowser, resetPage, settle } from '../support/runtime-test-browser.ts';

// push.js loads its lifecycle chunk by a script element (the e2e tests load the built files); here it is the module.
// Each load is kept: a test's idle prefetch can still be importing when the test ends, and under load such an import
// made the next test's mock of the site's module miss (push.js then saw an active site). Each test first waits for them.
const chunkLoads = vi.hoisted(() => [] as Promise<unknown>[]);
vi.mock('../../runtime/chunk-loader.ts', async (original) => ({
  ...(await original<typeof import('../../runtime/chunk-loader.ts')>()),
  loadChunk: () => {
    const load = import('../../runtime/chunks/lifecycle.ts').then((module) => module.chunk);
    chunkLoads.push(load);
    return load;
  },
}));

type Host = { pushkit?: unknown };
const host = window as unknown as Host;

async function loadPushJs(): Promise<void> {
  vi.resetModules();
  await import('../../runtime/push.ts');
}

beforeEach(async () => {
  await Promise.allSettled(chunkLoads.splice(0));
  resetPage();
  delete host.pushkit;
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.doUnmock('pushkit:core-site');
});

describe('queue stub', () => {
  it('runs the queued calls in order, then becomes the API whose push keeps working', async () => {
    installBrowser();
    const order: string[] = [];
    host.pushkit = [];
    (host.pushkit as unknown[]).push(['getSubscriberId', () => order.push('getSubscriberId')]);
    (host.pushkit as unknown[]).push(['setTrackingConsent', false]);
    (host.pushkit as unknown[]).push(['isOptedOut', (optedOut: boolean) => order.push('isOptedOut ' + optedOut)]);
    await loadPushJs();
    expect(order).toEqual(['getSubscriberId', 'isOptedOut false']);
    expect(localStorage.getItem('wingify_donot_track_actions')).toBe('1');
    const api = host.pushkit as { push(call: unknown): void; triggerOptIn: unknown };
    expect(Array.isArray(api)).toBe(false);
    expect(typeof api.triggerOptIn).toBe('function');
    api.push(['setTrackingConsent', true]);
    expect(localStorage.getItem('wingify_donot_track_actions')).toBe('0');
  });

  it('exposes the API of spec section 7', async () => {
    installBrowser();
    await loadPushJs();
    const api = host.pushkit as Record<string, unknown>;
    for (const name of [
      'push',
      'tag',
      'addToSegment',
      'addSubscriberToSegment',
      'removeSubscriberFromSegment',
      'triggerOptIn',
      'triggerOptOut',
      'getSubscriberId',
      'isOptedOut',
      'setTrackingConsent',
      'subscriptionSuccessCallback',
      'subscriptionFailureCallback',
      'optInShownCallback',
    ]) {
      expect(typeof api[name], name).toBe('function');
    }
  });

  it('works without the stub, adds no global but pushkit, and ignores bad calls without throwing', async () => {
    installBrowser();
    const before = new Set(Object.keys(window));
    await loadPushJs();
    await settle();
    const added = Object.keys(window).filter((key) => !before.has(key));
    expect(added).toEqual(['pushkit']);
    const api = host.pushkit as { push(call: unknown): void };
    expect(() => {
      api.push('not a call');
      api.push(['noSuchMethod']);
      api.push(['push', ['triggerOptIn']]);
      api.push(['subscriptionSuccessCallback', 'not a function']);
      api.push([
        'getSubscriberId',
        () => {
          throw new Error('the page callback fails');
        },
      ]);
    }).not.toThrow();
  });

  it('an inactive site does nothing: the queue stays a plain array', async () => {
    vi.doMock('pushkit:core-site', () => ({ site: { ...site, isInactive: true } }));
    const fetchSpy = installBrowser().fetchCalls;
    host.pushkit = [['triggerOptIn']];
    await loadPushJs();
    await settle();
    expect(host.pushkit).toEqual([['triggerOptIn']]);
    expect(document.querySelector('#pushkit-prompts')).toBeNull();
    expect(fetchSpy).toEqual([]);
  });

  it('queued callbacks hear the outcome of a queued triggerOptIn', async () => {
    installBrowser({ answer: 'denied' });
    const failures: unknown[] = [];
    host.pushkit = [['subscriptionFailureCallback', (result: unknown) => failures.push(result)], ['triggerOptIn']];
    await loadPushJs();
    // the prompt shows once the chunk is in: here a module import, which a loaded machine makes slow
    const shownYes = () => document.querySelector<HTMLElement>('#pushkit-prompts [data-pk]:not([hidden]) [data-pk-action="yes"]');
    const yes = await vi.waitUntil(shownYes, { timeout: 60_000 });
    yes.click();
    await settle(40);
    expect(failures).toEqual([{ status: 'BLOCKED', message: 'User has blocked push notifications.' }]);
  });
});
