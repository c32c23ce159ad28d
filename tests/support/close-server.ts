// How a test's HTTP(S) server closes. `server.close()` alone waits for every connection that is not idle between
// two requests, and a socket a browser opened ahead of a request (a preconnect) counts as one; browsers are handed on
// to the next file (browser.ts), so their sockets outlive the file (hostile-pages' afterAll once timed out at 120 s).
import type { Server } from 'node:http';

/** Stops `server` and ends every connection it holds; resolves once it has closed. */
export function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  return closed;
}
