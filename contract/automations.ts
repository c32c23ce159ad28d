// Automations (docs/automations.md): messages the provider sends by itself, per site. The kinds, their limits
// and default texts (the site config's defaults, config/schema.ts), the owner API's replies and push.js's cart
// report. Types and constants only (no zod: the dashboard reads them); a change's schema is automation-input.ts.

import type { DeliveryFailureGroup } from './delivery-failures.ts';
import type { LanguageTexts } from './languages.ts';
import type { CurrencyAmount } from './shop-order.ts';

export type { AutomationChange } from './automation-input.ts';

/**
 * welcome: N minutes after a subscribe; abandonedCart: N minutes after an add-to-cart that no order follows;
 * browseAbandonment: N minutes after a product view that no add-to-cart or order follows; priceDrop and
 * backInStock: when the shop's product update lowers a price or puts a product back in stock, to subscribers who
 * viewed or carted it within `days`; winBack: subscribers with no visit and no click for `days`, once.
 */
export const AUTOMATION_KINDS = ['welcome', 'abandonedCart', 'browseAbandonment', 'priceDrop', 'backInStock', 'winBack'] as const;
export type AutomationKind = (typeof AUTOMATION_KINDS)[number];

/** Thirty days: the longest an automation waits. */
export const AUTOMATION_DELAY_MAX_MINUTES = 43_200;
/** A click followed by an order within this many hours is a conversion; at most thirty days. */
export const CONVERSION_WINDOW_MAX_HOURS = 720;

/** The abandoned-cart texts may name the product added last and its price (the cart event's, divided by 100). */
export const CART_PLACEHOLDERS = ['{product}', '{price}'] as const;
/** The texts of browseAbandonment, priceDrop and backInStock: the product's name, price (with its currency) and page. */
export const PRODUCT_PLACEHOLDERS = ['{product}', '{price}', '{oldPrice}', '{url}'] as const;
/** The longest `days` an automation looks back (priceDrop, backInStock) or waits (winBack). */
export const AUTOMATION_DAYS_MAX = 365;

/** Topic header (RFC 8030) of cart reminders: a newer reminder replaces an older one the push service still holds. */
export const CART_REMINDER_TOPIC = 'pushkit-cart-reminder';
/** Notification tag of cart reminders: a newer one replaces an older one still on screen. */
export const CART_REMINDER_TAG = 'pushkit-cart-reminder';

export interface AutomationSettings {
  enabled: boolean;
  /** Minutes after the subscribe (welcome) or after the add-to-cart (abandonedCart). */
  delayMinutes: number;
  title: string;
  body: string;
  /** Texts per language tag (docs/languages.md): each subscriber gets the best match of their language. */
  texts: LanguageTexts;
  /** The page a click opens; the cart reminder opens the product's page when the cart event names one. */
  url: string | null;
  conversionWindowHours: number;
  /** priceDrop, backInStock: views or carts this many days back count; winBack: days without a visit or click. */
  days: number;
  /** Only to subscribers of this audience (docs/audiences.md); null or absent: to everyone it concerns. */
  audience?: string | null;
}

export const AUTOMATION_DEFAULTS: Record<AutomationKind, AutomationSettings> = {
  welcome: {
    enabled: false,
    delayMinutes: 5,
    title: 'Welcome!',
    body: "Thanks for subscribing. We'll let you know when something new comes up.",
    texts: {},
    url: null,
    conversionWindowHours: 24,
    days: 30,
  },
  abandonedCart: {
    enabled: false,
    delayMinutes: 240,
    title: 'Still thinking about {product}?',
    body: '{product} ({price}) is waiting in your cart.',
    texts: {},
    url: null,
    conversionWindowHours: 24,
    days: 30,
  },
  browseAbandonment: {
    enabled: false,
    delayMinutes: 120,
    title: 'Still looking at {product}?',
    body: '{product} is {price}. Take another look.',
    texts: {},
    url: null,
    conversionWindowHours: 24,
    days: 30,
  },
  priceDrop: {
    enabled: false,
    delayMinutes: 0,
    title: '{product} is now {price}',
    body: 'The price dropped from {oldPrice}.',
    texts: {},
    url: null,
    conversionWindowHours: 24,
    days: 30,
  },
  backInStock: {
    enabled: false,
    delayMinutes: 0,
    title: '{product} is back in stock',
    body: 'Get it while it lasts: {price}.',
    texts: {},
    url: null,
    conversionWindowHours: 24,
    days: 30,
  },
  winBack: {
    enabled: false,
    delayMinutes: 0,
    title: 'We miss you',
    body: "Here's what's new since your last visit.",
    texts: {},
    url: null,
    conversionWindowHours: 24,
    days: 30,
  },
};

export interface AutomationStats {
  /** Messages waiting for their time. */
  scheduled: number;
  /** Messages the sender has finished with, whatever the push service answered. */
  sent: number;
  delivered: number;
  /** Messages the push service refused or whose subscription was gone (failed and expired). */
  failed: number;
  /** Those by the push service's status, reason and host, most first. */
  failures: DeliveryFailureGroup[];
  /** Subscribers who clicked one of its notifications. */
  clicked: number;
  /**
   * Clicks followed by an order of the same subscriber within the conversion window (of clicks already pruned, as
   * counted with the automation's window at their prune: docs/automations.md#revenue).
   */
  conversions: number;
  /** Those orders' totals, summed per currency, an order after two clicks once (orders without a currency have none). */
  revenue: CurrencyAmount[];
}

export interface Automation extends AutomationSettings {
  kind: AutomationKind;
  /** The fields the owner changed through the owner API (they win over the site config's). */
  changed: (keyof AutomationSettings)[];
  stats: AutomationStats;
}

/** The subscription health of a site (GET sites/:name/subscriber-health?days=&deliveries=). */
export interface SubscriberHealth {
  /**
   * Active subscribers whose last `deliveries` delivered messages all lack a `shown` report: their browser
   * may be dropping pushes, or has revoked the site (Safari revokes a site that pushes without showing).
   */
  atRisk: number;
  deliveries: number;
  /**
   * Subscribers a push service answered 404/410 for, per day over the last `days` days: days of the time zone asked
   * for (`?zone=`, the owner's display zone; UTC when left out), YYYY-MM-DD.
   */
  expired: { date: string; count: number }[];
  /** Expired subscribers stored now. */
  expiredTotal: number;
}

/** The replies (paths under /api/v1/). */
export type AutomationsReply = { status: 'success'; automations: Automation[] };
export type AutomationReply = { status: 'success'; automation: Automation };
export type SubscriberHealthReply = { status: 'success' } & SubscriberHealth;

/** POST {sync server}/api/v1/shopify/cart: push.js reports the cart event (spec section 3) of a subscriber. */
export type CartEventForm = {
  hash: string;
  subscriberId: string;
  subscriberSecret: string;
  pId?: string;
  pName: string;
  /** The cart's price of the item, already divided by 100 (spec section 9). */
  price?: string;
  pUrl?: string;
  pImgUrl?: string;
};
export type CartEventReply = { status: 'success'; scheduled: boolean };
