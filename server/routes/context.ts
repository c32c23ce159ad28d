import type { Database } from '../database.ts';
import type { SiteRegistry } from '../site-access.ts';

/** What every route module gets from createApp. */
export interface RouteContext {
  db: Database;
  registry: SiteRegistry;
}
