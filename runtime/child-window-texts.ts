// Texts of the child window (spec section 2), word for word where the spec quotes them.
export const childWindowTexts = (company: string) => ({
  incognito:
    "You seem to be browsing in Incognito/Private mode. The website can't get your permission to opt-in to push notifications in the Incognito/Private mode. Please switch to normal mode and try again.",
  alreadySubscribed: `You seem to have already been subscribed to push notifications from ${company}. You can close this window.`,
  blocked: `You have previously blocked or denied notifications from ${company}. To subscribe, allow notifications for this site in your browser's site settings, then try again.`,
  optOutSubscribed: `To unsubscribe from ${company}, click the lock icon next to the address bar and set Notifications to Block.`,
  optOutNotSubscribed: `You don't seem to have push notifications enabled from ${company}. You can close this window.`,
  unsubscribing: `Please wait unsubscribing you from ${company}`,
  unsubscribed: `You have been unsubscribed from ${company}. You can close this window.`,
  optingOut: `You are being opted out of the product for ${company}`,
  optedOut: 'You have successfully opted out of the product for this website',
  alreadyOptedOut: 'You are already opted out of the product for this website',
  optOutFailed: 'Something went wrong while opting out',
  // Not quoted by the spec: the confirmations a link alone cannot give (anyone can send a visitor to this page).
  confirmUnsubscribe: `Unsubscribe from push notifications from ${company}?`,
  unsubscribeButton: 'Unsubscribe',
  confirmOptOut: `Opt out of the product for ${company}?`,
  optOutButton: 'Opt out',
  unsupported: 'Push notifications are not enabled for this browser. Please use Chrome 42 or above, or Firefox 44 or above.',
  // Not quoted by the spec either: the browser's push service refused the subscription (the page hears "Could Not
  // Subscribe."), or the provider did not save it.
  notSubscribed: `We could not subscribe you to push notifications from ${company}. Please try again later.`,
});
