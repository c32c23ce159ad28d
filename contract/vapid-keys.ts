// A site's VAPID key ring as the owner API answers it (GET/POST/DELETE /api/v1/sites/:name/vapid-keys), the
// dashboard reads it and `push-kit keys vapid` prints it.

/** One key of the ring. */
export interface VapidRingKey {
  /** The first 12 hex digits of the SHA-256 of the public key: what `keys vapid retire KEY` takes. */
  id: string;
  /** The public key (65-byte P-256 point, url-safe base64); the private key never leaves the state folder. */
  publicKey: string;
  /** The site's current key (the config's vapidPublicKey); the others are legacy keys. */
  current: boolean;
  /** Subscribed subscribers whose subscription was made with this key. */
  subscribers: number;
  /** Whether the provider can sign with it (its private key file is there and is the public key's). */
  canSign: boolean;
  /** What is wrong with the key, or null. */
  problem: string | null;
}

/** GET sites/:name/vapid-keys */
export interface VapidKeyRing {
  /** The current key first, then the legacy keys by id. */
  keys: VapidRingKey[];
  /** Subscribed subscribers on any key but the current one: their browsers move to it on their next visit. */
  onLegacyKey: number;
  /** Keys subscribers were recorded with whose files are no longer on the ring: their pushes wait. */
  missing: { id: string; subscribers: number }[];
}

/** POST sites/:name/vapid-keys/rotate */
export interface VapidKeyRotation {
  /** The id of the key that was current and is now a legacy key. */
  previous: string;
  /** The id of the new current key. */
  current: string;
  /** The new current public key, now in the site config: rebuild and deploy push.js. */
  publicKey: string;
  /** The site config file that was updated. */
  configFile: string;
}
