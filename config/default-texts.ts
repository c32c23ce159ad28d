// Texts of spec section 2, reproduced exactly; they are the defaults of a config's `texts` and `style`.
export const DEFAULT_TEXTS = {
  contextBox: "Please Click on 'Allow' in the permission box to get instant notifications from our website. No Email Required.",
  alreadySubscribed: 'You are already subscribed to get instant alerts from us. Keep an eye on your browser for new notifications from us.',
  blocked:
    'Uh-oh! You seem to have blocked the notifications last time you came on our website. To see how to subscribe, ' +
    'click the lock icon beside the address bar, set Notifications to Allow, then reload this page.',
  /** Not a spec text: iOS home-screen web apps came after the spec (issue 20). */
  iosHomeScreen:
    "To get notifications from us on your iPhone or iPad, tap the Share button, choose 'Add to Home Screen', " +
    'then open this site from its new icon on your Home Screen and subscribe there.',
  offer: 'This site wants to notify you when it gets new Calligraphy submissions.',
  /** Not a spec text: shown when the subscribe fails after the visitor's Yes (issue 28). */
  subscribeFailed: 'Sorry, we could not subscribe you to notifications. Please try again later.',
} as const;
