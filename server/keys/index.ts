// The VAPID key ring capability: a site's current key plus its legacy keys, the key each subscription was made
// with (server/keys/key-ring.ts), and the owner's list, rotate and retire (server/keys/vapid-key-ring.ts).
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
export { retireVapidKey, rotateVapidKey, vapidKeyRing } from './vapid-key-ring.ts';
export { vapidKeyRoutes } from './routes.ts';
