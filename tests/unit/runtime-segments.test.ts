// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createServices } from '../../runtime/create-services.ts';
import { transport } from '../../runtime/transport.ts';
import { joinOnce, startSegments } from '../../runtime/segments.ts';
import type { CoreServices } from '../../runtime/services.ts';
import { retrySegmentKey, segmentMarkerKey } from '../../runtime/storage-keys.ts';
import type { RuleSegment, SegmentContext } from '../../runtime/site-module.ts';
import { SUBSCRIBER_SECRET_OF_DOUBLE, servicesDouble, testSite } from '../support/services-double.ts';

/** As push.js's core starts them: the join is the chunk's joinOnce. */
const start = (services: CoreServices): void => startSegments(services, (sid, vn) => joinOnce(services, sid, vn));

beforeEach(() => {
  vi.useFakeTimers();
  document.body.innerHTML = '<button class="pricing">Pricing</button><p id="text">text</p>';
});
afterEach(() => vi.useRealTimers());

const flush = () => vi.advanceTimersByTimeAsync(0);
const asCalls = (calls: { url: string; params: Record<string, unknown> }[]) =>
  calls.filter((call) => call.url === 'https://services.test/as');

describe('rule segments', () => {
  it('a visitor whose condition holds is added once: /as call and marker holding vn', async () => {
    const segments: RuleSegment[] = [
      { sid: 7, vn: 2, test: () => true },
      { sid: 8, vn: 1, test: () => false },
    ];
    const { services, calls, local } = servicesDouble({ site: testSite({ segments }) });
    start(services);
    await flush();
    expect(asCalls(calls)).toEqual([
      {
        kind: 'get',
        url: 'https://services.test/as',
        params: {
          id: '7',
          customer_hash: services.site_.hash,
          'subscriber_list[]': 'sub-1',
          'subscriberSecret[]': SUBSCRIBER_SECRET_OF_DOUBLE,
        },
      },
    ]);
    expect(local.get(segmentMarkerKey(7))).toBe('2');
    expect(local.get(segmentMarkerKey(8))).toBeNull();
    services.emit_('delay');
    await flush();
    expect(asCalls(calls), 'not added twice').toHaveLength(1);
  });

  it('a changed vn re-evaluates and adds again; the same vn does not', async () => {
    const same = servicesDouble({ site: testSite({ segments: [{ sid: 7, vn: 2, test: () => true }] }) });
    same.local.set(segmentMarkerKey(7), '2');
    start(same.services);
    await flush();
    expect(asCalls(same.calls)).toEqual([]);

    const changed = servicesDouble({ site: testSite({ segments: [{ sid: 7, vn: 3, test: () => true }] }) });
    changed.local.set(segmentMarkerKey(7), '2');
    start(changed.services);
    await flush();
    expect(asCalls(changed.calls)).toHaveLength(1);
    expect(changed.local.get(segmentMarkerKey(7))).toBe('3');
  });

  it('a failed add resolves false and leaves no marker', async () => {
    const { services, calls, local } = servicesDouble({
      site: testSite({ segments: [{ sid: 7, vn: 1, test: () => true }] }),
      reply: () => new Error('down'),
    });
    start(services);
    await flush();
    expect(asCalls(calls)).toHaveLength(1);
    expect(local.get(segmentMarkerKey(7))).toBeNull();
  });

  it('no subscriber id: no call, no marker', async () => {
    const { services, calls, local } = servicesDouble({
      subscriberId: undefined,
      site: testSite({ segments: [{ sid: 7, vn: 1, test: () => true }] }),
    });
    start(services);
    await flush();
    expect(calls).toEqual([]);
    expect(local.get(segmentMarkerKey(7))).toBeNull();
  });

  it('the context: url, path, query, referrer, visit count, tags, events; re-evaluated when events fire', async () => {
    const seen: SegmentContext[] = [];
    const test = (context: SegmentContext) => {
      seen.push(structuredClone(context));
      return context.events.scroll === true;
    };
    const { services, calls, local, session } = servicesDouble({ site: testSite({ segments: [{ sid: 'scrollers', vn: 1, test }] }) });
    local.set('pushkit_tags', JSON.stringify({ plan: 'gold' }));
    local.set('pushkit_visits', '4');
    history.replaceState(null, '', '/shop/item?color=red&size=m');
    start(services);
    await flush();
    expect(seen[0]).toMatchObject({
      url: location.href,
      path: '/shop/item',
      query: { color: 'red', size: 'm' },
      referrer: document.referrer,
      visitCount: 5,
      timeOnSiteSeconds: 0,
      tags: { plan: 'gold' },
      events: {},
    });
    expect(session.get('pushkit_session_start')).not.toBeNull();
    expect(asCalls(calls)).toEqual([]);
    vi.advanceTimersByTime(3000);
    services.emit_('scroll');
    await flush();
    expect(seen.at(-1)).toMatchObject({ events: { scroll: true }, timeOnSiteSeconds: 3 });
    expect(asCalls(calls)).toHaveLength(1);
  });

  it('the visit count grows once per session', () => {
    const first = servicesDouble({ site: testSite({ segments: [{ sid: 1, vn: 1, test: () => false }] }) });
    start(first.services);
    start(first.services);
    expect(first.local.get('pushkit_visits')).toBe('1');
  });

  it('in the browser, a visit is a browser session kept in a session cookie; sessionStorage is never touched', () => {
    const sessionStorageRead = vi.spyOn(window, 'sessionStorage', 'get');
    localStorage.clear();
    const view = () => start(createServices(testSite({ segments: [{ sid: 1, vn: 1, test: () => false }] }), transport.get_));
    view();
    view();
    expect(localStorage.getItem('pushkit_visits')).toBe('1');
    expect(document.cookie).toMatch(/(^|; )pushkit_session_start=\d{13}(;|$)/);
    // The browser restarted: session cookies are gone, the next view is a new visit.
    document.cookie = 'pushkit_session_start=;expires=Thu, 01 Jan 1970 00:00:00 GMT;path=/';
    view();
    expect(localStorage.getItem('pushkit_visits')).toBe('2');
    expect(sessionStorageRead).not.toHaveBeenCalled();
    sessionStorageRead.mockRestore();
  });

  it('a throwing condition does not hold and does not throw', async () => {
    const { services, calls } = servicesDouble({
      site: testSite({
        segments: [
          {
            sid: 1,
            vn: 1,
            test: () => {
              throw new Error('x');
            },
          },
        ],
      }),
    });
    expect(() => start(services)).not.toThrow();
    await flush();
    expect(calls).toEqual([]);
  });
});

describe('click segments', () => {
  const site = () => testSite({ clickSegments: [{ sid: 'pricing', vn: 1, selector: '.pricing' }] });
  const click = (selector: string) => document.querySelector(selector)!.dispatchEvent(new MouseEvent('click', { bubbles: true }));

  it('a click on a matching element adds the visitor; other clicks do not', async () => {
    const { services, calls, local } = servicesDouble({ site: site() });
    start(services);
    click('#text');
    await flush();
    expect(asCalls(calls)).toEqual([]);
    click('.pricing');
    await flush();
    expect(asCalls(calls)).toHaveLength(1);
    expect(asCalls(calls)[0]!.params).toMatchObject({ id: 'pricing' });
    expect(local.get(segmentMarkerKey('pricing'))).toBe('1');
  });

  it('skipped when tracking is refused', async () => {
    const { services, calls } = servicesDouble({ site: site(), tracking: false });
    start(services);
    click('.pricing');
    await flush();
    expect(calls).toEqual([]);
  });

  it('a failed add stores wingifyRetrySegment and is retried on a later view', async () => {
    const view1 = servicesDouble({ site: site(), reply: () => new Error('down') });
    start(view1.services);
    click('.pricing');
    await flush();
    expect(view1.local.get(retrySegmentKey('pricing'))).toBe('1');
    expect(view1.local.get(segmentMarkerKey('pricing'))).toBeNull();

    const view2 = servicesDouble({ site: site() });
    view2.local.set(retrySegmentKey('pricing'), '1');
    start(view2.services);
    await flush();
    expect(asCalls(view2.calls)).toHaveLength(1);
    expect(view2.local.get(retrySegmentKey('pricing'))).toBeNull();
    expect(view2.local.get(segmentMarkerKey('pricing'))).toBe('1');
  });
});
