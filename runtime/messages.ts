// Statuses and messages of spec section 8 handed to the page's callbacks, word for word.
export interface OptInResult {
  status: string;
  message: string;
}

export const SUBSCRIBED: OptInResult = { status: 'SUBSCRIBED', message: 'User has subscribed to push notifications.' };
export const BLOCKED: OptInResult = { status: 'BLOCKED', message: 'User has blocked push notifications.' };
export const SAFARI_ERROR: OptInResult = { status: 'SAFARI-ERROR', message: 'Opt In Failed To Display in Safari.' };
export const CANCELLED: OptInResult = { status: 'CANCELLED', message: 'User has closed the notifications opt-in.' };
/**
 * The browser subscribed but the provider did not store it (section 8's "Sync error"); the next page view
 * retries with insert-failed. push-kit's status: the spec is silent on what the page hears.
 */
export const SYNC_ERROR: OptInResult = { status: 'ERROR', message: 'Could not save the subscription.' };
export const NOT_SUBSCRIBED: OptInResult = { status: 'CANCELLED', message: 'Could Not Subscribe.' };

export const OPTED_OUT_TEXT = 'You have successfully opted out of the product for this website';
export const ALREADY_OPTED_OUT_TEXT = 'You are already opted out of the product for this website';
