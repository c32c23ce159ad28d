// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchTriggers } from '../../runtime/triggers.ts';
import { triggerEventKey } from '../../runtime/storage-keys.ts';
import type { TriggerConfig } from '../../runtime/site-module.ts';
import { servicesDouble } from '../support/services-double.ts';
import { scrolledSource } from '../../compiler/site-module.ts';
import type { SiteConfig } from '../../config/schema.ts';

/** The scroll test the compiler writes into the site module for `scroll` (tests only: push.js carries it as code). */
const scrolled = (scroll: SiteConfig['triggers']['scroll']): TriggerConfig['scrolled'] =>
  new Function(`return ${scrolledSource(scroll)}`)() as TriggerConfig['scrolled'];

const config = (overrides: Partial<TriggerConfig>): TriggerConfig => ({
  anyOf: [],
  watch: [],
  delayMs: 5000,
  persist: 'page',
  ...overrides,
});

function setPage(scrollHeight: number, innerHeight: number): void {
  Object.defineProperty(document.documentElement, 'scrollHeight', { configurable: true, value: scrollHeight });
  Object.defineProperty(window, 'innerHeight', { configurable: true, value: innerHeight });
}
function scrollTo(y: number): void {
  Object.defineProperty(window, 'scrollY', { configurable: true, value: y });
  window.dispatchEvent(new Event('scroll'));
}

beforeEach(() => {
  vi.useFakeTimers();
  document.body.innerHTML = '<button id="buy">Buy</button><a class="other">x</a>';
});
afterEach(() => vi.useRealTimers());

describe('watchTriggers', () => {
  it('delay: fires after delayMs, once', () => {
    const { services, emitted } = servicesDouble();
    const fire = vi.fn();
    watchTriggers(config({ anyOf: ['delay'], delayMs: 3000 }), fire, services);
    vi.advanceTimersByTime(2999);
    expect(fire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fire).toHaveBeenCalledTimes(1);
    expect(emitted).toEqual(['delay']);
  });

  it('delay: 0 means no delay (docs/spec-silent-cases.md), not the 5 s default', () => {
    const { services } = servicesDouble();
    const fire = vi.fn();
    watchTriggers(config({ anyOf: ['delay'], delayMs: 0 }), fire, services);
    vi.advanceTimersByTime(0);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it('load: fires on the load event or at once when the page has loaded', async () => {
    const { services } = servicesDouble();
    const fire = vi.fn();
    watchTriggers(config({ anyOf: ['load'] }), fire, services);
    if (document.readyState !== 'complete') window.dispatchEvent(new Event('load'));
    await vi.advanceTimersByTimeAsync(1);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it('click: only on an element matching the selector, and once', () => {
    const { services, emitted } = servicesDouble();
    const fire = vi.fn();
    watchTriggers(config({ anyOf: ['click'], clickSelector: '#buy' }), fire, services);
    document.querySelector('.other')!.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    expect(fire).not.toHaveBeenCalled();
    document.querySelector('#buy')!.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    document.querySelector('#buy')!.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    expect(fire).toHaveBeenCalledTimes(1);
    expect(emitted).toContain('click');
  });

  it('mousedown: on an element matching the selector', () => {
    const { services } = servicesDouble();
    const fire = vi.fn();
    watchTriggers(config({ anyOf: ['mousedown'], mousedownSelector: '.other' }), fire, services);
    document.querySelector('#buy')!.dispatchEvent(new MouseEvent('mousedown', { bubbles: true }));
    expect(fire).not.toHaveBeenCalled();
    document.querySelector('.other')!.dispatchEvent(new MouseEvent('mousedown', { bubbles: true }));
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it('interval: after intervalTicks periods of 1 s', () => {
    const { services } = servicesDouble();
    const fire = vi.fn();
    watchTriggers(config({ anyOf: ['interval'], intervalTicks: 3 }), fire, services);
    vi.advanceTimersByTime(2999);
    expect(fire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it('leaveIntent: leaving through the top edge (y <= 2) after the first second', () => {
    const { services } = servicesDouble();
    const fire = vi.fn();
    watchTriggers(config({ anyOf: ['leaveIntent'] }), fire, services);
    const leave = (clientY: number) => document.dispatchEvent(new MouseEvent('mouseout', { clientY, relatedTarget: null }));
    leave(0);
    expect(fire, 'ignored in the first second').not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    leave(3);
    expect(fire, 'below the 2 px threshold').not.toHaveBeenCalled();
    leave(2);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it('leaveIntent: moving between elements (relatedTarget set) is not leaving', () => {
    const { services } = servicesDouble();
    const fire = vi.fn();
    watchTriggers(config({ anyOf: ['leaveIntent'] }), fire, services);
    vi.advanceTimersByTime(1000);
    document.dispatchEvent(new MouseEvent('mouseout', { clientY: 0, relatedTarget: document.body }));
    expect(fire).not.toHaveBeenCalled();
  });

  describe('scroll (page 3000 px, window 1000 px: 2000 px scrollable)', () => {
    beforeEach(() => setPage(3000, 1000));
    const cases: [string, SiteConfig['triggers']['scroll'], number, number][] = [
      ['percent 50 or 100 px from top: 97 no, 98 yes', { percent: 50, pixelsFromTop: 100 }, 97, 98],
      ['percent 50: 997 no, 998 yes', { percent: 50 }, 997, 998],
      ['100 px from top: 97 no, 98 yes', { pixelsFromTop: 100 }, 97, 98],
      ['100 px from bottom: 1897 no, 1898 yes', { pixelsFromBottom: 100 }, 1897, 1898],
    ];
    for (const [name, scroll, before, at] of cases) {
      it(name, () => {
        const { services, emitted } = servicesDouble();
        const fire = vi.fn();
        watchTriggers(config({ anyOf: ['scroll'], scrolled: scrolled(scroll) }), fire, services);
        scrollTo(before);
        expect(fire).not.toHaveBeenCalled();
        scrollTo(at);
        expect(fire).toHaveBeenCalledTimes(1);
        expect(emitted).toEqual(['scroll']);
      });
    }
  });

  it('subscribe and ecom events emitted by other modules fire the trigger', () => {
    for (const kind of ['subscribe', 'ecom.add_cart', 'ecom.order']) {
      const { services } = servicesDouble();
      const fire = vi.fn();
      watchTriggers(config({ anyOf: [kind] }), fire, services);
      services.emit_(kind === 'subscribe' ? 'ecom.order' : 'subscribe');
      expect(fire).not.toHaveBeenCalled();
      services.emit_(kind);
      expect(fire, kind).toHaveBeenCalledTimes(1);
    }
  });

  it('any of several kinds fires, only once', () => {
    const { services } = servicesDouble();
    const fire = vi.fn();
    watchTriggers(config({ anyOf: ['click', 'delay'], clickSelector: '#buy', delayMs: 1000 }), fire, services);
    document.querySelector('#buy')!.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    vi.advanceTimersByTime(1000);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  describe('persistence', () => {
    for (const [persist, store] of [
      ['session', 'session'],
      ['always', 'local'],
    ] as const) {
      it(`${persist}: an event stored in ${store}Storage counts as already happened`, () => {
        const first = servicesDouble();
        watchTriggers(config({ anyOf: ['click'], clickSelector: '#buy', persist }), vi.fn(), first.services);
        document.querySelector('#buy')!.dispatchEvent(new MouseEvent('click', { bubbles: true }));
        expect(first[store].get(triggerEventKey('click'))).toBe('1');

        const next = servicesDouble();
        next[store].set(triggerEventKey('click'), '1');
        const fire = vi.fn();
        watchTriggers(config({ anyOf: ['click'], clickSelector: '#buy', persist }), fire, next.services);
        vi.advanceTimersByTime(1);
        expect(fire).toHaveBeenCalledTimes(1);
      });
    }

    it('page: nothing is stored', () => {
      const { services, local, session } = servicesDouble();
      watchTriggers(config({ anyOf: ['delay'], delayMs: 10 }), vi.fn(), services);
      vi.advanceTimersByTime(10);
      expect(local.data.size + session.data.size).toBe(0);
    });
  });

  it('no trigger after an opt-out', () => {
    const { services, state } = servicesDouble({ optedOut: true });
    const fire = vi.fn();
    watchTriggers(config({ anyOf: ['delay'], delayMs: 10 }), fire, services);
    vi.advanceTimersByTime(10);
    expect(fire).not.toHaveBeenCalled();

    const later = servicesDouble();
    watchTriggers(config({ anyOf: ['delay'], delayMs: 10 }), fire, later.services);
    later.state.optedOut = true;
    vi.advanceTimersByTime(10);
    expect(fire).not.toHaveBeenCalled();
    expect(state.optedOut).toBe(true);
  });
});
