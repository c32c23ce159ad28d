// The local indexed database of spec section 3: `pushkit`, version 1, one store of subscription info.
// The service worker reads it too, to know the previous subscription when the browser renews it.
import { openDB } from 'idb';

export const DB_NAME = 'pushkit';
export const DB_VERSION = 1;
export const STORE = 'subscriptionInfo';
const KEY = 'subscription';

export interface StoredSubscription {
  endpoint: string;
  keys?: { p256dh?: string; auth?: string };
}

const open = () =>
  openDB(DB_NAME, DB_VERSION, {
    upgrade(db) {
      db.createObjectStore(STORE, { keyPath: 'identifier' });
    },
  });

/** The saved subscription, or undefined when there is none or the record is not one we wrote. */
export async function readSubscription(): Promise<StoredSubscription | undefined> {
  try {
    const db = await open();
    const record = (await db.get(STORE, KEY)) as { subscriptionString?: unknown } | undefined;
    db.close();
    const parsed = JSON.parse(String(record?.subscriptionString)) as Partial<StoredSubscription> | null;
    return typeof parsed?.endpoint === 'string' && /^https?:\/\//.test(parsed.endpoint) ? (parsed as StoredSubscription) : undefined;
  } catch {
    return undefined;
  }
}

export async function saveSubscription(subscription: StoredSubscription | undefined): Promise<void> {
  try {
    const db = await open();
    if (subscription) await db.put(STORE, { identifier: KEY, subscriptionString: JSON.stringify(subscription), timestamp: Date.now() });
    else await db.delete(STORE, KEY);
    db.close();
  } catch {
    // No IndexedDB (private mode in some browsers): the localStorage copy still drives the sync.
  }
}
