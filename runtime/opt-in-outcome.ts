// How a subscribe attempt ends, for the flows that report it (native, Safari, child window).
import type { OptInResult } from './messages.ts';

export interface OptInOutcome {
  /** SUBSCRIBED, with the stored subscriber id. */
  succeed_(): void;
  fail_(result: OptInResult): void;
  /** Denied: the block event, the do-not-show flag, status blocked, then `fail_(result)`. */
  blocked_(result: OptInResult): void;
}
