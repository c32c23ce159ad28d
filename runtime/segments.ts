// Segment membership (spec section 4): rule segments evaluated on each view and whenever a trigger event
// fires, and click segments joined by clicking a matching element. push.js's core evaluates them (startSegments);
// the join itself (joinOnce, its request) is the lifecycle chunk's, fetched only once a subscriber's condition holds.
import { onMatch } from './closest.ts';
import type { SegmentContext, SegmentId } from './site-module.ts';
import type { CoreServices } from './services.ts';
import { storedTags } from './tags.ts';
import type { AddToSegmentQuery } from '../contract/visitor-calls.ts';
import { Key, retrySegmentKey, segmentMarkerKey } from './storage-keys.ts';

/** GET {services server}/as for one segment; resolves false on failure, never rejects. */
async function joinSegment(services: CoreServices, sid: SegmentId, subscriberId: string): Promise<boolean> {
  try {
    await services.get_(services.site_.servicesServerUrl + '/as', {
      id: String(sid),
      customer_hash: services.site_.hash,
      'subscriber_list[]': subscriberId,
      'subscriberSecret[]': services.secret_(),
    } satisfies AddToSegmentQuery);
    return true;
  } catch {
    return false;
  }
}

/** Adds the visitor once per segment version: the marker holds `vn`, a new `vn` adds again. */
export async function joinOnce(services: CoreServices, sid: SegmentId, vn: number): Promise<boolean> {
  const subscriberId = services.subscriberId_();
  if (!subscriberId || services.local_.get(segmentMarkerKey(sid)) === String(vn)) return false;
  const joined = await joinSegment(services, sid, subscriberId);
  if (joined) services.local_.set(segmentMarkerKey(sid), String(vn));
  return joined;
}

/** A new browser session (no start time in its session cookie) counts one more visit. */
function visitCount(services: CoreServices): [visits: number, sessionStart: number] {
  let visits = Number(services.local_.get(Key.VISITS)) || 0;
  let start = Number(services.session_.get(Key.SESSION_START));
  if (!start) {
    services.session_.set(Key.SESSION_START, String((start = Date.now())));
    services.local_.set(Key.VISITS, String(++visits));
  }
  return [visits, start];
}

/** Joins a segment once (joinOnce, run by the chunk); resolves false on failure, never rejects. */
export type JoinSegment = (sid: SegmentId, vn: number) => Promise<boolean>;

export function startSegments(services: CoreServices, join: JoinSegment): void {
  const { site_: site } = services;
  if (PK_FEATURES.segments && site.segments.length) {
    // the session's start read once: a trigger event's evaluation reads no cookie; counted only where a condition
    // reads the count or the time on site (a first visit then writes no session cookie and no count)
    const [visits, sessionStart] = PK_FEATURES.segmentVisits || PK_FEATURES.segmentTime ? visitCount(services) : [0, 0];
    const events: Record<string, boolean> = {};
    const pending = new Set<SegmentId>();
    const evaluate = (): void => {
      // a visitor who is no subscriber joins nothing: nothing to evaluate (the visit is counted above all the same)
      if (!services.subscriberId_()) return;
      // Only what the site's conditions read (their flags, compiler/features.ts): a condition reading an absent
      // field reads undefined, as for a missing query parameter, never throws.
      const context = { path: location.pathname } as SegmentContext;
      if (PK_FEATURES.segmentPage) {
        context.url = location.href;
        context.referrer = document.referrer;
      }
      if (PK_FEATURES.segmentQuery) {
        const query: Record<string, string> = (context.query = {});
        new URLSearchParams(location.search).forEach((value, key) => (query[key] = value));
      }
      if (PK_FEATURES.segmentVisits) context.visitCount = visits;
      if (PK_FEATURES.segmentTime) context.timeOnSiteSeconds = Math.floor((Date.now() - sessionStart) / 1000) || 0;
      if (PK_FEATURES.segmentTags) context.tags = storedTags(services);
      if (PK_FEATURES.segmentEvents) context.events = events;
      for (const { sid, vn, test } of site.segments) {
        if (pending.has(sid) || services.local_.get(segmentMarkerKey(sid)) === String(vn)) continue;
        try {
          if (test(context)) {
            pending.add(sid);
            void join(sid, vn).finally(() => pending.delete(sid));
          }
        } catch {
          // A condition that fails on odd page data simply does not hold.
        }
      }
    };
    services.on_(
      '',
      PK_FEATURES.segmentEvents
        ? (kind) => {
            events[kind] = true;
            evaluate();
          }
        : evaluate,
    );
    evaluate();
  }

  if (PK_FEATURES.clickSegments && site.clickSegments.length && services.trackingAllowed_()) {
    const joinClicked = (sid: SegmentId, vn: number): void => {
      if (!services.subscriberId_() || !services.trackingAllowed_() || services.local_.get(segmentMarkerKey(sid)) === String(vn)) return;
      // Stored before the call and removed once it succeeds: a click on a link leaves the page, which can
      // cancel the call, and the next view then retries it.
      services.local_.set(retrySegmentKey(sid), String(vn));
      void join(sid, vn).then((joined) => joined && services.local_.remove(retrySegmentKey(sid)));
    };
    for (const { sid, vn } of site.clickSegments) if (services.local_.get(retrySegmentKey(sid))) joinClicked(sid, vn);
    for (const { sid, vn, selector } of site.clickSegments) onMatch('click', selector, () => joinClicked(sid, vn));
  }
}
