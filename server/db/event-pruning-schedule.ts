// The provider prunes old events once at start (in the background: a large backlog never delays serving)
// and then once a day, until it stops; `alsoPrune` (the delivery rows past the reporting window) runs after it.
import type { Database } from './database.ts';
import { pruneEvents } from './event-retention.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface EventPruning {
  /** Resolves once a prune under way has finished; no other starts. */
  stop(): Promise<void>;
}

export function scheduleEventPruning(
  db: Database,
  days: number,
  log: (line: string) => void = () => undefined,
  alsoPrune: () => Promise<string | undefined> = async () => undefined,
): EventPruning {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const prune = () => {
    if (stopped) return;
    running = pruneEvents(db, days)
      .then(
        (deleted) => {
          if (deleted > 0) log(`pruned ${deleted} event${deleted === 1 ? '' : 's'} older than ${days} days`);
        },
        (error: unknown) => log(`event pruning failed, trying again tomorrow: ${(error as Error).message}`),
      )
      .then(alsoPrune)
      .then(
        (line) => {
          if (line) log(line);
        },
        (error: unknown) => log(`pruning failed, trying again tomorrow: ${(error as Error).message}`),
      );
  };
  prune();
  const timer = setInterval(prune, DAY_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
