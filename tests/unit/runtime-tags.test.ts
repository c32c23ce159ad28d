// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTagger, storedTags } from '../../runtime/tags.ts';
import { SUBSCRIBER_SECRET_OF_DOUBLE, servicesDouble } from '../support/services-double.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const setHidden = (hidden: boolean) =>
  Object.defineProperty(document, 'visibilityState', { configurable: true, value: hidden ? 'hidden' : 'visible' });

describe('createTagger', () => {
  it('several tags within 50 ms make one call with all of them', () => {
    const { services, calls } = servicesDouble();
    const tagger = createTagger(services);
    tagger.tag('plan', 'gold');
    vi.advanceTimersByTime(30);
    tagger.tag('city', 'Paris');
    vi.advanceTimersByTime(49);
    expect(calls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(calls).toEqual([
      {
        kind: 'get',
        url: 'https://services.test/tags',
        params: {
          hash: services.site_.hash,
          subscriberId: 'sub-1',
          subscriberSecret: SUBSCRIBER_SECRET_OF_DOUBLE,
          tags: JSON.stringify({ plan: 'gold', city: 'Paris' }),
        },
      },
    ]);
    tagger.tag('plan', 'silver');
    vi.advanceTimersByTime(50);
    expect(calls).toHaveLength(2);
  });

  it('tags are stored locally for segment conditions', () => {
    const { services } = servicesDouble();
    const tagger = createTagger(services);
    tagger.tag('plan', 'gold');
    tagger.tag('plan', 'silver');
    expect(storedTags(services)).toEqual({ plan: 'silver' });
    // Send the batch, so this tagger has nothing left for the next test's visibilitychange.
    vi.advanceTimersByTime(50);
  });

  it('flushed with sendBeacon when the page hides, so none is lost', () => {
    const sendBeacon = vi.fn((_url: string) => true);
    vi.stubGlobal('navigator', { ...navigator, sendBeacon, userAgent: navigator.userAgent });
    const { services, calls } = servicesDouble();
    const tagger = createTagger(services);
    tagger.tag('plan', 'gold');
    setHidden(true);
    document.dispatchEvent(new Event('visibilitychange'));
    setHidden(false);
    expect(sendBeacon).toHaveBeenCalledTimes(1);
    const url = new URL(sendBeacon.mock.calls[0]![0]);
    expect(url.origin + url.pathname).toBe('https://services.test/tags');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      hash: services.site_.hash,
      subscriberId: 'sub-1',
      subscriberSecret: SUBSCRIBER_SECRET_OF_DOUBLE,
      tags: '{"plan":"gold"}',
    });
    vi.advanceTimersByTime(100);
    expect(calls, 'not sent twice').toEqual([]);
  });

  it('pagehide flushes too; a tag set after it waits for its own 50 ms', () => {
    const sendBeacon = vi.fn((_url: string) => true);
    vi.stubGlobal('navigator', { ...navigator, sendBeacon });
    const { services, calls } = servicesDouble();
    const tagger = createTagger(services);
    tagger.tag('a', '1');
    window.dispatchEvent(new Event('pagehide'));
    expect(sendBeacon).toHaveBeenCalledTimes(1);
    tagger.tag('b', '2');
    vi.advanceTimersByTime(49);
    expect(calls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.params.tags).toBe('{"b":"2"}');
  });

  it('no subscriber id: nothing is sent', () => {
    const { services, calls } = servicesDouble({ subscriberId: undefined });
    const tagger = createTagger(services);
    tagger.tag('a', '1');
    vi.advanceTimersByTime(50);
    expect(calls).toEqual([]);
  });
});
