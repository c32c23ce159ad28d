// Issue 27, item 4: connection exhaustion. Headers announcing a 60 000-byte body and then a byte now and again held a
// connection for ever (no request timeout; the rate limit counts a request only once its body is in), so one address
// could hold every file descriptor. A real provider on real sockets: a trickled body is cut off at the request
// timeout while other clients are answered, and one address's connections past the cap are closed as they open
// while another address (127.0.0.2, loopback on Linux) still connects; a trusted proxy is not capped.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startProvider, type Provider } from '../../server/start-provider.ts';
import { embeddedDatabaseDir } from '../../server/state-paths.ts';
import { seedMigratedDatabase } from '../support/migrated-database.ts';
import { rawClient, type RawClient } from '../support/raw-client.ts';
import { tempDir, testSite } from '../support/server.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function provider(options: Parameters<typeof startProvider>[0]): Promise<Provider> {
  const state = await tempDir('pushkit-slow-');
  // the embedded database starts migrated (migrated-database.ts): this file is about sockets, not making a database
  await seedMigratedDatabase(embeddedDatabaseDir(state.path));
  const started = await startProvider({ sites: [testSite()], stateDir: state.path, rateLimit: false, ...options });
  cleanups.push(state.remove, () => started.close());
  return started;
}

type Client = RawClient;

/** A raw TCP connection to the provider from `localAddress`. */
const client = (server: Provider, localAddress?: string): Promise<Client> => rawClient(server, cleanups, localAddress);

/** Sends GET /health on a kept-alive connection; resolves with the status line once the whole reply is in. */
async function health(connection: Client, timeoutMs = 3_000): Promise<string> {
  const before = connection.received().length;
  connection.socket.write('GET /health HTTP/1.1\r\nHost: provider\r\nConnection: keep-alive\r\n\r\n');
  return vi.waitFor(
    () => {
      const reply = connection.received().slice(before);
      const [head = '', body] = reply.split('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
      if (connection.closed() && !(body !== undefined && body.length >= length)) throw new Error('closed without a reply');
      if (body === undefined || !(body.length >= length)) throw new Error('no whole reply yet');
      return head.split('\r\n')[0]!;
    },
    { timeout: timeoutMs, interval: 10 },
  );
}

describe('connection exhaustion', () => {
  it('a trickled body is cut off at the request timeout while other clients are answered', async () => {
    const requestTimeoutMs = 1_000;
    const server = await provider({ requestTimeoutMs, connectionTimeoutMs: 5_000 });
    const slow = await client(server);
    const opened = Date.now();
    slow.socket.write(
      'POST /syncSubscriptionAction.php HTTP/1.1\r\nHost: provider\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{',
    );
    // a byte every 100 ms: never silent long enough for the connection timeout, so only the request timeout ends it
    const trickle = setInterval(() => slow.socket.write('x'), 100);
    try {
      // meanwhile the provider answers others
      expect(await health(await client(server))).toBe('HTTP/1.1 200 OK');
      await vi.waitFor(() => expect(slow.closed()).toBe(true), { timeout: requestTimeoutMs + 4_000, interval: 20 });
    } finally {
      clearInterval(trickle);
    }
    const heldMs = Date.now() - opened;
    expect(heldMs).toBeGreaterThanOrEqual(requestTimeoutMs - 50);
    // the request timeout plus Node's check interval (a tenth of it here) and the loop's own delays
    expect(heldMs).toBeLessThan(requestTimeoutMs + 1_500);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    console.log(`slow body held ${heldMs} ms with a ${requestTimeoutMs} ms request timeout`);
    expect(await health(await client(server))).toBe('HTTP/1.1 200 OK');
  });

  it('the connection past the cap from one address is closed as it opens; another address still connects', async () => {
    const cap = 4;
    const server = await provider({ maxConnectionsPerAddress: cap, connectionTimeoutMs: 30_000 });
    const held: Client[] = [];
    for (let n = 0; n < cap; n += 1) {
      const connection = await client(server);
      // answered: the provider has taken and counted it
      expect(await health(connection)).toBe('HTTP/1.1 200 OK');
      held.push(connection);
    }
    const extra = await client(server);
    extra.socket.write('GET /health HTTP/1.1\r\nHost: provider\r\n\r\n');
    await vi.waitFor(() => expect(extra.closed()).toBe(true), { timeout: 3_000, interval: 10 });
    expect(extra.received()).toBe('');

    // another address is another client
    expect(await health(await client(server, '127.0.0.2'))).toBe('HTTP/1.1 200 OK');
    // the held ones keep working
    expect(await health(held[0]!)).toBe('HTTP/1.1 200 OK');

    // one closes: the address may open one again (once the provider has seen the close)
    held.pop()!.socket.end();
    await vi.waitFor(
      async () => {
        const again = await client(server);
        try {
          expect(await health(again, 500)).toBe('HTTP/1.1 200 OK');
        } finally {
          again.socket.destroy();
        }
      },
      { timeout: 5_000, interval: 50 },
    );
  });

  it('a trusted proxy is not capped: it speaks for many clients', async () => {
    const server = await provider({ maxConnectionsPerAddress: 2, trustProxy: '127.0.0.1', connectionTimeoutMs: 30_000 });
    const connections = await Promise.all([1, 2, 3, 4].map(() => client(server)));
    for (const connection of connections) expect(await health(connection)).toBe('HTTP/1.1 200 OK');
  });
});
