// A clock the test moves: the provider's `clock` option (server/clock.ts). It starts at the real time unless told
// otherwise, so the database's own stamps (claims, events) and the clock's agree until the test moves it.
export interface ManualClock {
  (): number;
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void;
  /** Sets the clock to a time: milliseconds since the epoch, or an ISO 8601 time with its offset. */
  set(time: number | string): void;
}

function millisecondsOf(time: number | string): number {
  const ms = typeof time === 'number' ? time : Date.parse(time);
  if (!Number.isFinite(ms)) throw new Error(`not a time: ${String(time)}`);
  return ms;
}

export function manualClock(start: number | string = Date.now()): ManualClock {
  let now = millisecondsOf(start);
  const clock = (() => now) as ManualClock;
  clock.advance = (ms: number) => {
    now += ms;
  };
  clock.set = (time: number | string) => {
    now = millisecondsOf(time);
  };
  return clock;
}

/**
 * A clock that runs with the real time (the system clock's behaviour) until the test moves it: `advance` and `set`
 * shift it, and it keeps running from there.
 */
export function runningClock(): ManualClock {
  let offset = 0;
  const clock = (() => Date.now() + offset) as ManualClock;
  clock.advance = (ms: number) => {
    offset += ms;
  };
  clock.set = (time: number | string) => {
    offset = millisecondsOf(time) - Date.now();
  };
  return clock;
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
