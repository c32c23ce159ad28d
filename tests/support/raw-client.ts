// A raw TCP connection to a provider, for the tests about its sockets: what it sent, and whether it closed.
import { connect, type Socket } from 'node:net';

export interface RawClient {
  socket: Socket;
  /** Everything the provider sent. */
  received(): string;
  closed(): boolean;
}

/** Connects to `server` from `localAddress`; `cleanups` gets the socket's destroy. */
export async function rawClient(
  server: { host: string; port: number },
  cleanups: (() => Promise<void>)[],
  localAddress = '127.0.0.1',
): Promise<RawClient> {
  const socket = connect({ host: server.host, port: server.port, localAddress });
  cleanups.push(async () => void socket.destroy());
  let text = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => text, closed: () => closed };
}
