// Issue 34: a provider's close waited 58.7 s on a connection a Chromium held open to it, so `push-kit serve` on
// SIGTERM waited as long for a visitor's open tab. A real provider on real sockets, with its default timeouts:
// close ends a connection that never sent a request and an idle kept-alive one at once, answers a request it was
// answering (the client reads the whole reply) and then ends its connection, and cuts one still unanswered at the
// grace period.
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

async function provider(options: Parameters<typeof startProvider>[0] = {}): Promise<Provider> {
  const state = await tempDir('pushkit-close-');
  await seedMigratedDatabase(embeddedDatabaseDir(state.path));
  const started = await startProvider({ sites: [testSite()], stateDir: state.path, rateLimit: false, ...options });
  cleanups.push(state.remove);
  return started;
}

type Client = RawClient;

const client = (server: Provider): Promise<Client> => rawClient(server, cleanups);

/** The whole reply on `connection` once it is in: its status line and body. */
async function reply(connection: Client): Promise<{ status: string; body: string }> {
  return vi.waitFor(
    () => {
      const [head = '', body] = connection.received().split('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
      if (body === undefined || !(body.length >= length)) throw new Error('no whole reply yet');
      return { status: head.split('\r\n')[0]!, body };
    },
    { timeout: 3_000, interval: 10 },
  );
}

/**
 * Milliseconds `server.close()` takes, failing at `limitMs` instead of waiting it out (it waited 60 and 72 s).
 * `whileClosing` runs once the close has begun.
 */
async function timedClose(server: Provider, limitMs: number, whileClosing?: () => void): Promise<number> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const closed = server.close();
  whileClosing?.();
  await Promise.race([
    closed,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`close still waiting after ${limitMs} ms`)), limitMs))),
  ]).finally(() => clearTimeout(timer));
  return Date.now() - started;
}

/** Resolves once the provider has a request's headers. */
const requestBegun = (server: Provider) => new Promise((resolve) => server.app.server.once('request', resolve));

const SYNC_HEAD =
  'POST /syncSubscriptionAction.php HTTP/1.1\r\nHost: provider\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n';

describe("a provider's close", () => {
  it('ends silent and kept-alive connections at once, answers a request begun, then ends its connection', async () => {
    const server = await provider();
    // a browser's preconnected socket: open, silent
    const silent = await client(server);
    const keptAlive = await client(server);
    keptAlive.socket.write('GET /health HTTP/1.1\r\nHost: provider\r\nConnection: keep-alive\r\n\r\n');
    expect((await reply(keptAlive)).status).toBe('HTTP/1.1 200 OK');
    // a request begun (headers in, its body not yet): the provider is answering it when the close comes
    const answering = await client(server);
    const begun = requestBegun(server);
    answering.socket.write(SYNC_HEAD + '{');
    await begun;

    const closeMs = await timedClose(server, 8_000, () => answering.socket.write('}'));
    console.log(`close with a silent, a kept-alive and an answering connection open: ${closeMs} ms`);
    // the old wait was 60 s (the silent one) and 72 s (the answered one's keep-alive); the slack is for a loaded machine
    expect(closeMs).toBeLessThan(3_000);
    expect(silent.closed()).toBe(true);
    expect(keptAlive.closed()).toBe(true);
    const { status, body } = await reply(answering);
    // answered by its route (a sync call with no fields is refused), not a closing server's 503
    expect(status).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(body)).toMatchObject({ status: 'failure' });
    expect(answering.closed()).toBe(true);
  });

  it('cuts a request still unanswered at the grace period', async () => {
    const closeGraceMs = 500;
    const server = await provider({ closeGraceMs });
    const stalled = await client(server);
    const begun = requestBegun(server);
    stalled.socket.write(SYNC_HEAD + '{');
    await begun;
    const closeMs = await timedClose(server, 8_000);
    console.log(`close with a request whose body never comes (grace ${closeGraceMs} ms): ${closeMs} ms`);
    expect(closeMs).toBeGreaterThanOrEqual(closeGraceMs - 50);
    expect(closeMs).toBeLessThan(closeGraceMs + 3_000);
    expect(stalled.closed()).toBe(true);
  });
});
