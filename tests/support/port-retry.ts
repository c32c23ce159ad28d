// A port from freePort() is free only a moment: the config that names it is written, and the bundle built,
// before a server listens on it, and in that window another process (or an outgoing connection of this
// machine, which takes its local port from the same range) may take it. A start that then fails with
// EADDRINUSE is run again on fresh ports, after it has closed whatever it had started.

const inUse = (error: unknown): boolean => {
  for (let cause = error; cause; cause = (cause as { cause?: unknown }).cause) {
    const { code, message } = cause as { code?: string; message?: string };
    if (code === 'EADDRINUSE' || (typeof message === 'string' && message.includes('EADDRINUSE'))) return true;
  }
  return false;
};

/** Runs `start` (which picks its own ports) again when it failed because a port was taken, at most `attempts` times. */
export async function retryOnPortInUse<T>(start: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !inUse(error)) throw error;
    }
  }
}
