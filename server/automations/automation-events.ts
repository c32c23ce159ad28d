// What the visitor calls do to a site's automations: a new subscriber gets its welcome scheduled, an add-to-cart
// its reminder, an order withdraws the reminder; a product view its browse reminder, a product change its
// messages. A paused automation schedules nothing.
import type { Database } from '../db/database.ts';
import type { HostedSite } from '../sites.ts';
import { automationSetting } from './automation-settings.ts';
import { cancelCartReminders, scheduleCartReminder, scheduleWelcome, type CartProduct } from './automation-messages.ts';
import type { CatalogueProduct } from '../shop/index.ts';
import { cancelWaiting, scheduleBrowseReminder, scheduleProductChange } from './shop-messages.ts';

type Site = Pick<HostedSite, 'hash' | 'config'>;

/** After an insert sync: the subscriber's welcome (once ever; a repeated insert schedules nothing). */
export async function subscriberInserted(db: Database, site: Site, subscriberId: string, now: number): Promise<boolean> {
  const settings = await automationSetting(db, site, 'welcome');
  return settings.enabled && scheduleWelcome(db, site, subscriberId, settings, now);
}

export async function cartAdded(db: Database, site: Site, subscriberId: string, product: CartProduct, now: number): Promise<boolean> {
  // An add-to-cart is not an abandoned browse: the browse reminder waiting is not sent.
  await cancelWaiting(db, site.hash, subscriberId, 'browseAbandonment');
  const settings = await automationSetting(db, site, 'abandonedCart');
  return settings.enabled && scheduleCartReminder(db, site, subscriberId, product, settings, now);
}

/** An order of the subscriber: the cart reminder still waiting is not sent (paused or not). */
export async function orderPlaced(db: Database, site: Site, subscriberId: string): Promise<void> {
  await cancelCartReminders(db, site.hash, subscriberId);
  await cancelWaiting(db, site.hash, subscriberId, 'browseAbandonment');
}

/** A product view of the subscriber: its browse reminder, when the product is in the shop's catalogue. */
export async function productViewed(
  db: Database,
  site: Site,
  subscriberId: string,
  product: CatalogueProduct | undefined,
  now: number,
): Promise<boolean> {
  if (!product) return false;
  const settings = await automationSetting(db, site, 'browseAbandonment');
  return settings.enabled && scheduleBrowseReminder(db, site, subscriberId, product, settings, now);
}

/** A change in the shop's product update: its messages, when that automation runs. Resolves with how many. */
export async function productChanged(
  db: Database,
  site: Site,
  kind: 'priceDrop' | 'backInStock',
  product: CatalogueProduct,
  change: number,
  now: number,
): Promise<number> {
  const settings = await automationSetting(db, site, kind);
  return settings.enabled ? scheduleProductChange(db, site, kind, product, change, settings, now) : 0;
}
