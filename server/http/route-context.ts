import type { Database } from '../db/database.ts';
import type { SiteRegistry } from './site-access.ts';
import type { CampaignQueue } from '../campaigns/campaign-queue.ts';
import type { PushServiceAllowlist } from '../push/push-services.ts';
import type { Clock } from '../clock.ts';

/** What every route module gets from createApp. */
export interface RouteContext {
  db: Database;
  registry: SiteRegistry;
  /** Sends campaigns created through the owner API; absent: they stay pending for `push-kit send`. */
  campaigns?: CampaignQueue;
  /** The push services a subscription's endpoint may be on. */
  pushServices: PushServiceAllowlist;
  /** When automated messages fall due (server/clock.ts). */
  clock: Clock;
}
