// The time the scheduler and the sender go by: the system clock, or one a test moves by hand.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
