// The VAPID key ring capability: a site's current key plus its legacy keys, the key each subscription was made
// with, listing, rotating and retiring keys (server/keys/key-ring.ts).
export {
  addLegacyVapidKey,
  currentVapidKeyId,
  isVapidKeyId,
  signingKeys,
  subscriptionVapidKeyId,
  vapidKeyId,
  type KeyRingSite,
  type SigningKeys,
} from './key-ring.ts';
