// How a closing provider ends its connections. Node's `server.close()` ends only the connections idle between two
// requests, then waits for the rest: one that never sent a request (a browser's preconnected socket) counts as a
// request begun and, the close having stopped Node's timeout checks, stays until its socket times out (60 s, the
// connection timeout); one whose request was being answered stays open after the reply as keep-alive (72 s,
// fastify's keep-alive timeout). An operator's restart with a visitor's tab open waited that long.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Tracks `server`'s connections and returns what to call as it closes: every connection with no request being
 * answered ends at once, one being answered ends as soon as its reply is sent, and any still open `graceMs` later
 * is destroyed.
 */
export function endConnectionsOnClose(server: Server, graceMs: number): () => void {
  const answering = new Map<Socket, number>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    answering.set(socket, 0);
    socket.once('close', () => answering.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const { socket } = request;
    answering.set(socket, (answering.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const left = (answering.get(socket) ?? 1) - 1;
      answering.set(socket, left);
      if (closing && left === 0) socket.destroySoon();
    });
  });
  return () => {
    if (closing) return;
    closing = true;
    for (const [socket, requests] of answering) if (requests === 0) socket.destroy();
    if (answering.size === 0) return;
    const cutOff = setTimeout(() => {
      for (const socket of answering.keys()) socket.destroy();
    }, graceMs);
    cutOff.unref();
    server.once('close', () => clearTimeout(cutOff));
  };
}
