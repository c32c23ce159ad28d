// Texts of spec section 2, reproduced exactly; they are the defaults of a config's `texts` and `style`.
export const DEFAULT_TEXTS = {
  contextBox: "Please Click on 'Allow' in the permission box to get instant notifications from our website. No Email Required.",
  alreadySubscribed: 'You are already subscribed to get instant alerts from us. Keep an eye on your browser for new notifications from us.',
  blocked:
    'Uh-oh! You seem to have blocked the notifications last time you came on our website. To see how to subscribe, ' +
    'click the lock icon beside the address bar, set Notifications to Allow, then reload this page.',
  offer: 'This site wants to notify you when it gets new Calligraphy submissions.',
} as const;
