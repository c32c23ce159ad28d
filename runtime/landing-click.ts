// A page opened from a notification whose browser handled the push message itself (declarative Web Push,
// no worker involved) carries the delivery's click token in CLICK_PARAM: report the click, and take the
// parameter out of the address bar so it is neither bookmarked nor shared. The provider checks the token and
// counts it once, for its own delivery only, so the report needs no subscriber state in this browser.
import { LandingParam } from '../contract/push-payload.ts';
import type { NotificationEventReport } from '../contract/notification-event.ts';
import type { SiteModule } from './site-module.ts';

export function reportLandingClick(site: Pick<SiteModule, 'hash' | 'serverSyncUrl'>): void {
  const url = new URL(location.href);
  const token = url.searchParams.get(LandingParam.CLICK);
  if (token === null) return;
  url.searchParams.delete(LandingParam.CLICK);
  history.replaceState(history.state, '', url);
  const report: NotificationEventReport = { hash: site.hash, click: token, event: 'clicked' };
  // A text/plain beacon: no preflight, and it is sent even when the visitor leaves the page at once.
  navigator.sendBeacon(site.serverSyncUrl + '/notificationEvent', JSON.stringify(report));
}
