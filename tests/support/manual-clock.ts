// A clock the test moves: the provider's `clock` option (server/clock.ts). It starts at the real time, so the
// database's own stamps (claims, events) and the clock's agree until the test moves it forward.
export interface ManualClock {
  (): number;
  advance(ms: number): void;
}

export function manualClock(start = Date.now()): ManualClock {
  let now = start;
  const clock = (() => now) as ManualClock;
  clock.advance = (ms: number) => {
    now += ms;
  };
  return clock;
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
