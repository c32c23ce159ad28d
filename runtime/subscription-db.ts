// The local indexed database of spec section 3 (storage-keys.ts names it): one store of subscription info.
// The service worker reads it too, to know the previous subscription when the browser renews it.
import { openDB } from 'idb';
import { DB_VERSION, Key } from './storage-keys.ts';

export interface StoredSubscription {
  endpoint: string;
  keys?: { p256dh?: string; auth?: string };
}

const open = () =>
  openDB(Key.DB_NAME, DB_VERSION, {
    upgrade(db) {
      db.createObjectStore(Key.DB_STORE, { keyPath: 'identifier' });
    },
  });

/** The saved subscription, or undefined when there is none or the record is not one we wrote. */
export async function readSubscription(): Promise<StoredSubscription | undefined> {
  try {
    const db = await open();
    const record = (await db.get(Key.DB_STORE, Key.DB_RECORD)) as { subscriptionString?: unknown } | undefined;
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
      await db.put(Key.DB_STORE, { identifier: Key.DB_RECORD, subscriptionString: JSON.stringify(subscription), timestamp: Date.now() });
    else await db.delete(Key.DB_STORE, Key.DB_RECORD);
    db.close();
  } catch {
    // No IndexedDB (private mode in some browsers): the localStorage copy still drives the sync.
  }
}
