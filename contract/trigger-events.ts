// The trigger event names of spec section 5: what a site config's trigger expression and segment conditions
// may name (the compiler checks them) and what the runtime records as they happen.
export const TRIGGER_EVENTS = [
  'load',
  'click',
  'mousedown',
  'delay',
  'interval',
  'leaveIntent',
  'scroll',
  'subscribe',
  'ecom.add_cart',
  'ecom.order',
] as const;
export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];
