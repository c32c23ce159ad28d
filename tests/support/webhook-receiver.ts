// A local HTTPS receiver of webhooks for tests: records every request (its raw body, as a verifier needs it) and
// answers per path as told: a list of statuses used up in order, then 200. Its certificate names 127.0.0.1,
// localhost and this machine's host name, so that only the provider's address rules keep a request from it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeServer } from './close-server.ts';

function certificate(dir: string): { keyPath: string; certPath: string } {
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  const names = `subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:${hostname()}`;
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1'].concat([
      '-addext',
      names,
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ]),
    { stdio: 'ignore' },
  );
  return { keyPath, certPath };
}

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  /** `https://127.0.0.1:<port>`. */
  origin: string;
  port: number;
  ca: string;
  received: ReceivedWebhook[];
  /** What arrived at `path`, in order. */
  at(path: string): ReceivedWebhook[];
  /** Answer the next requests to `path` with these statuses (a 3xx with `location`), then 200. */
  answer(path: string, statuses: number[], location?: string): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-receiver-'));
  const { keyPath, certPath } = certificate(dir);
  const ca = readFileSync(certPath, 'utf8');
  const received: ReceivedWebhook[] = [];
  const answers = new Map<string, { statuses: number[]; location?: string }>();
  const server: Server = createServer({ key: readFileSync(keyPath), cert: ca }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
      received.push({ path, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const answer = answers.get(path);
      const status = answer?.statuses.shift() ?? 200;
      if (status >= 300 && status < 400) {
        res.writeHead(status, { location: answer?.location ?? '/' }).end();
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : `receiver says ${status} ${'x'.repeat(400)}`);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    ca,
    received,
    at: (path) => received.filter((request) => request.path === path),
    answer: (path, statuses, location) => answers.set(path, { statuses: [...statuses], location }),
    close: async () => {
      await closeServer(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
