// Url-safe base64 to bytes (the VAPID public key, spec section 5); shared by the page and the worker. atob
// decodes without the padding (the HTML standard's forgiving base64), so none is added.
export function urlBase64ToBytes(value: string): Uint8Array {
  return Uint8Array.from(atob(value.replace(/-/g, '+').replace(/_/g, '/')), (char) => char.charCodeAt(0));
}
