// How `serve` and `dev` wait to be stopped: the first SIGINT (Ctrl+C) or SIGTERM (a process manager) resolves,
// and both handlers go. Call it before announcing readiness: a SIGTERM sent as soon as the ready line is read
// must stop the process cleanly, not kill it.
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
