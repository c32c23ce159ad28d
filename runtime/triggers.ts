// Opt-in triggers (placeholder: only the delay event, until the trigger module lands).
import type { TriggerConfig } from './site-module.ts';
import type { RuntimeServices } from './services.ts';

/** Calls `fire` once, when the site's trigger expression first holds. */
export function watchTriggers(triggers: TriggerConfig, fire: () => void, _services: RuntimeServices): void {
  setTimeout(fire, triggers.delayMs);
}
