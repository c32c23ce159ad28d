// Url-safe base64 to bytes (the VAPID public key, spec section 5); shared by the page and the worker.
export function urlBase64ToBytes(value: string): Uint8Array {
  const base64 = (value + '='.repeat((4 - (value.length % 4)) % 4)).replace(/-/g, '+').replace(/_/g, '/');
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
}
