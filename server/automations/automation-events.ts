// What the visitor calls do to a site's automations: a new subscriber gets its welcome scheduled, an add-to-cart
// its reminder, an order withdraws the reminder. A paused automation schedules nothing.
import type { Database } from '../db/database.ts';
import type { HostedSite } from '../sites.ts';
import { automationSetting } from './automation-settings.ts';
import { cancelCartReminders, scheduleCartReminder, scheduleWelcome, type CartProduct } from './automation-messages.ts';

type Site = Pick<HostedSite, 'hash' | 'config'>;

/** After an insert sync: the subscriber's welcome (once ever; a repeated insert schedules nothing). */
export async function subscriberInserted(db: Database, site: Site, subscriberId: string, now: number): Promise<boolean> {
  const settings = await automationSetting(db, site, 'welcome');
  return settings.enabled && scheduleWelcome(db, site, subscriberId, settings, now);
}

export async function cartAdded(db: Database, site: Site, subscriberId: string, product: CartProduct, now: number): Promise<boolean> {
  const settings = await automationSetting(db, site, 'abandonedCart');
  return settings.enabled && scheduleCartReminder(db, site, subscriberId, product, settings, now);
}

/** An order of the subscriber: the cart reminder still waiting is not sent (paused or not). */
export async function orderPlaced(db: Database, site: Site, subscriberId: string): Promise<void> {
  await cancelCartReminders(db, site.hash, subscriberId);
}
