// The ports `push-kit dev` listens on. A port the user named with a flag is that port or an error naming it and
// the flag; a default port that is taken gives way to a free one, so `npm start` works beside another server.
import { createServer } from 'node:net';
import { cliError } from '../errors.ts';

export interface PortChoice {
  port: number;
  /** The default port that was taken, when a free one replaced it. */
  taken?: number;
}

function tryListen(port: number, host: string): Promise<number | NodeJS.ErrnoException> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    server.listen({ port, host, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A port free on `host` a moment ago: `requested` (from `--<flag>`) exactly, or else `preferred` or any free one.
 * A requested port in use is E_PORT_IN_USE; a default one that cannot be bound (taken, privileged) is replaced.
 */
export async function pickPort(options: { requested?: number; preferred: number; flag: string; host: string }): Promise<PortChoice> {
  const first = options.requested ?? options.preferred;
  const result = await tryListen(first, options.host);
  if (typeof result === 'number') return { port: result };
  if (options.requested !== undefined) {
    if (result.code === 'EADDRINUSE') throw cliError('E_PORT_IN_USE', { port: first, flag: options.flag });
    throw cliError('E_LISTEN', { address: `${options.host}:${first}`, reason: result.message });
  }
  const free = await tryListen(0, options.host);
  if (typeof free !== 'number') throw free;
  return { port: free, taken: first };
}

/** `--port`/`--site-port`: 0 (any free port) to 65535. */
export function parsePortFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw cliError('E_ARGUMENT', { option: flag, rule: 'must be a port number, 0 to 65535' });
  return port;
}
