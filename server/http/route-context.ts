import type { Database } from '../db/database.ts';
import type { SiteRegistry } from './site-access.ts';
import type { PushServiceAllowlist } from '../push/push-services.ts';
import type { Clock } from '../clock.ts';

/** What starts a campaign the owner API created (the provider's campaign queue). */
export interface CampaignStarter {
  /** The provider's time (ms), by which a local-time campaign looks for each subscriber's hour. */
  now(): number;
  enqueue(siteHash: string, campaignId: string): void;
}

/** What every route module gets from createApp. */
export interface RouteContext {
  db: Database;
  registry: SiteRegistry;
  /** Sends campaigns created through the owner API; absent: they stay pending for `push-kit send`. */
  campaigns?: CampaignStarter;
  /** The push services a subscription's endpoint may be on. */
  pushServices: PushServiceAllowlist;
  /** When automated messages fall due (server/clock.ts). */
  clock: Clock;
  /** The project's state folder (`.push-kit`): the sites' key files (server/state-paths.ts). */
  stateDir: string;
  /** The provider file's token of this run (server/provider-file.ts): it opens every hosted site's owner API. */
  providerToken?: string;
}
