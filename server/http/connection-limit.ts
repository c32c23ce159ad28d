// How long a client may take to send a request, and how many connections one client may hold open. Without them a
// client that sends headers announcing a body and then a byte every few seconds holds its connection for ever (the
// rate limit counts a request only once its body has arrived), and one address can hold every file descriptor the
// process has. The cap is checked when a connection opens, before a byte is read; an address is counted as the rate
// limit counts it (client-address.ts: IPv6 by its /64). Connections from a trusted proxy are not capped: it speaks
// for many clients, and capping them is its job (SECURITY.md).
import type { Server, Socket } from 'node:net';
import { clientAddressKey } from './client-address.ts';

export interface ConnectionLimits {
  /** Milliseconds a client has to send a whole request, headers and body (fastify's `requestTimeout`); 0: no limit. */
  requestTimeoutMs: number;
  /** Milliseconds a connection may stay silent, between requests or within one (fastify's `connectionTimeout`); 0: no limit. */
  connectionTimeoutMs: number;
  /** Connections one client address may hold open at once; 0: no cap. */
  maxConnectionsPerAddress: number;
  /** Milliseconds a closing server gives the requests it is answering before it ends their connections. */
  closeGraceMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  requestTimeoutMs: 30_000,
  // not shorter: a silent handler (a campaign created for a large site) counts as silence too
  connectionTimeoutMs: 60_000,
  maxConnectionsPerAddress: 64,
  closeGraceMs: 10_000,
};

/**
 * How often Node looks for requests past their timeout. Its default (30 s) would let a slow body live up to twice
 * the request timeout; a tenth of it, at most a second, keeps the bound close.
 */
export function timeoutCheckIntervalMs(requestTimeoutMs: number): number {
  if (requestTimeoutMs <= 0) return 30_000;
  return Math.max(50, Math.min(1_000, Math.floor(requestTimeoutMs / 10)));
}

/**
 * Closes, as it opens, every connection from an address that already holds `max` open ones; `exempt` names the
 * addresses never capped (trusted proxies).
 */
export function capConnectionsPerAddress(server: Server, max: number, exempt: (ip: string) => boolean): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress;
    if (!ip || exempt(ip)) return;
    const key = clientAddressKey(ip);
    const count = open.get(key) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}
