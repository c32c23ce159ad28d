// The local indexed database of spec section 3 (storage-keys.ts names it): one store of subscription info.
// The service worker reads it too, to know the previous subscription when the browser renews it.
import { openDB } from 'idb';
import { DB_NAME, DB_RECORD, DB_STORE, DB_VERSION } from './storage-keys.ts';

export interface StoredSubscription {
  endpoint: string;
  keys?: { p256dh?: string; auth?: string };
}

const open = () =>
  openDB(DB_NAME, DB_VERSION, {
    upgrade(db) {
      db.createObjectStore(DB_STORE, { keyPath: 'identifier' });
    },
  });

/** The saved subscription, or undefined when there is none or the record is not one we wrote. */
export async function readSubscription(): Promise<StoredSubscription | undefined> {
  try {
    const db = await open();
    const record = (await db.get(DB_STORE, DB_RECORD)) as { subscriptionString?: unknown } | undefined;
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
    if (subscription)
      await db.put(DB_STORE, { identifier: DB_RECORD, subscriptionString: JSON.stringify(subscription), timestamp: Date.now() });
    else await db.delete(DB_STORE, DB_RECORD);
    db.close();
  } catch {
    // No IndexedDB (private mode in some browsers): the localStorage copy still drives the sync.
  }
}
