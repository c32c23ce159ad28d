// The lifecycle chunk handed to the runtime as a module, for unit tests (push.js loads it by a script element).
import { chunk, type LifecycleChunk } from '../../runtime/chunks/lifecycle.ts';

export const inlineChunk = (): Promise<LifecycleChunk> => Promise.resolve(chunk);

/** Lets pending promise steps run (the hand-over to the chunk), without a timer a test may have faked. */
export const microtasks = async (rounds = 50): Promise<void> => {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
};
