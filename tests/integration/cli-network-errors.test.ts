// A provider the command line cannot reach: the message names the URL and why (refused, unknown host, TLS,
// timeout, reset), not undici's "fetch failed". The real CLI against servers on this machine that fail each way.
// And `push-kit --version`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from '../support/fake-push-service.ts';

const CLI = fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url));
let dir: string;
const servers: Server[] = [];

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: { ...process.env, DATABASE_URL: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

async function listening(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

const campaignsAt = (provider: string, env?: NodeJS.ProcessEnv) =>
  runCli(['campaigns', '--site', 'shop', '--key', 'pk_test', '--provider', provider], env);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pk-net-'));
});
afterAll(async () => {
  for (const server of servers) server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a provider that cannot be reached', () => {
  it('says refused, unknown host, TLS, timeout or reset, with the URL', async () => {
    const closed = createServer();
    const refusedAt = await listening(closed);
    await new Promise((done) => closed.close(done));
    const { keyPath, certPath } = createSelfSignedCertificate(dir);
    const tlsAt = await listening(createHttpsServer({ key: readFileSync(keyPath), cert: readFileSync(certPath) }) as unknown as Server);
    const silentAt = await listening(createServer(() => undefined)); // accepts, never answers
    const resetAt = await listening(createServer((socket) => socket.once('data', () => socket.resetAndDestroy())));

    const [refused, unknown, tls, timeout, reset] = await Promise.all([
      campaignsAt(`http://${refusedAt}`),
      campaignsAt('http://provider.invalid:8787'),
      campaignsAt(`https://${tlsAt}`),
      campaignsAt(`http://${silentAt}`, { PUSHKIT_PROVIDER_TIMEOUT_MS: '500' }),
      campaignsAt(`http://${resetAt}`),
    ]);
    const cannotReach = (url: string) => `push-kit: cannot reach the provider at ${url}: `;
    expect(refused.stderr).toBe(
      `${cannotReach(`http://${refusedAt}`)}connection refused (ECONNREFUSED): nothing listens on ${refusedAt}; is the provider running?\n`,
    );
    // ENOTFOUND, or EAI_AGAIN where no name server answers at all
    expect(unknown.stderr).toMatch(
      /^push-kit: cannot reach the provider at http:\/\/provider\.invalid:8787: unknown host \(DNS, E[A-Z_]+\): provider\.invalid has no address; check the URL\n$/,
    );
    expect(tls.stderr).toContain(`${cannotReach(`https://${tlsAt}`)}TLS certificate not accepted (DEPTH_ZERO_SELF_SIGNED_CERT): `);
    expect(timeout.stderr).toBe(
      `${cannotReach(`http://${silentAt}`)}timed out: no answer within 0.5 s (PUSHKIT_PROVIDER_TIMEOUT_MS sets how long to wait)\n`,
    );
    expect(reset.stderr).toMatch(/the connection was reset \((ECONNRESET|UND_ERR_SOCKET)\)/);
    expect(reset.stderr).toContain(cannotReach(`http://${resetAt}`));
    for (const result of [refused, unknown, tls, timeout, reset]) expect(result.status).toBe(3);
  });
});

it('push-kit --version prints the package version', async () => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const printed = await runCli(['--version']);
  expect(printed).toMatchObject({ status: 0, stdout: `${version}\n` });
});
