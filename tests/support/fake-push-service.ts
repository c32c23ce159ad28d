// A local HTTPS push service for tests: records every request, answers per endpoint path as told, decrypts
// bodies (RFC 8291, the browser's side) and verifies VAPID JWTs (RFC 8292).
import { execFileSync } from 'node:child_process';
import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeServer } from './close-server.ts';
import { PushServiceAllowlist } from '../../server/push/push-services.ts';

export interface RecordedPush {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  at: number;
  /** Why the push service refused its VAPID authorization (FakePushServiceOptions.subscriptionKey), if it did. */
  vapidRefused?: string;
}

export type FakeAnswer = (
  { status: 201 | 202 | 404 | 410 | 400 | 403 | 413 } | { status: 429 | 500 | 503; retryAfter?: string; times?: number }
) & {
  /** The answer's body (JSON when it starts with `{`); a function may echo the request. Default `fake push service says <status>`. */
  body?: string | ((push: RecordedPush) => string);
};

export interface FakePushService {
  origin: string;
  /** PEM of the self-signed certificate, to trust it (`ca` of sendPush). */
  ca: string;
  /** Path of that certificate, for NODE_EXTRA_CA_CERTS. */
  certPath: string;
  /** The provider's allowlist naming only this service (the `pushServices` option; `origin` for PUSHKIT_PUSH_SERVICES). */
  pushServices: PushServiceAllowlist;
  requests: RecordedPush[];
  /** Answer requests to `path` this way; a 429/5xx with `times` answers so that often, then 201. */
  answer(path: string, answer: FakeAnswer): void;
  countFor(path: string): number;
  close(): Promise<void>;
}

export function createSelfSignedCertificate(dir: string): { keyPath: string; certPath: string } {
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  return { keyPath, certPath };
}

export interface FakePushServiceOptions {
  /** Called with each push as it arrives (before it is answered). */
  onPush?: (push: RecordedPush) => void;
  /** Keep every push in `requests` (default); a long benchmark turns it off. */
  record?: boolean;
  /**
   * The VAPID public key the subscription at `path` was made with, as a real push service knows it: a push whose
   * `Authorization` is not a valid JWT of that key is answered 403 (and recorded, with `vapidRefused`).
   */
  subscriptionKey?: (path: string) => string | undefined;
}

export async function startFakePushService(options: FakePushServiceOptions = {}): Promise<FakePushService> {
  const dir = mkdtempSync(join(tmpdir(), 'fake-push-'));
  const { keyPath, certPath } = createSelfSignedCertificate(dir);
  const ca = readFileSync(certPath, 'utf8');
  const requests: RecordedPush[] = [];
  const answers = new Map<string, FakeAnswer & { times?: number }>();
  const counts = new Map<string, number>();

  const server: Server = createServer({ key: readFileSync(keyPath), cert: ca }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const push: RecordedPush = { path, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      if (options.record !== false) requests.push(push);
      options.onPush?.(push);
      counts.set(path, (counts.get(path) ?? 0) + 1);
      const expectedKey = options.subscriptionKey?.(path);
      if (expectedKey !== undefined) {
        try {
          verifyVapidAuthorization(req.headers.authorization, expectedKey);
        } catch (error) {
          push.vapidRefused = (error as Error).message;
          res
            .writeHead(403, { 'content-type': 'text/plain' })
            .end('the VAPID credentials do not match those the subscription was made with');
          return;
        }
      }
      const answer = answers.get(path);
      if (!answer || answer.status === 201 || answer.status === 202) {
        res.writeHead(answer?.status ?? 201, { location: `${path}/message` }).end();
        return;
      }
      if ('times' in answer && answer.times !== undefined) {
        if (answer.times <= 0) {
          res.writeHead(201).end();
          return;
        }
        answer.times -= 1;
      }
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      if ('retryAfter' in answer && answer.retryAfter !== undefined) headers['retry-after'] = answer.retryAfter;
      const body =
        answer.body === undefined
          ? `fake push service says ${answer.status}`
          : typeof answer.body === 'function'
            ? answer.body(push)
            : answer.body;
      if (body.startsWith('{')) headers['content-type'] = 'application/json';
      res.writeHead(answer.status, headers).end(body);
    });
  });
  // Real push services keep idle connections open for a while; Node's 5 s default makes idle keep-alive
  // sockets race their reuse.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    ca,
    certPath,
    pushServices: PushServiceAllowlist.fromSetting([`https://127.0.0.1:${port}`]),
    requests,
    answer: (path, answer) => answers.set(path, { ...answer }),
    countFor: (path) => counts.get(path) ?? 0,
    close: async () => {
      await closeServer(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A browser's subscription key pair, kept by the test to read what was sent. */
export interface SubscriberKeys {
  privateKey: Buffer;
  p256dh: string;
  auth: string;
}

export function createSubscriberKeys(): SubscriberKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    privateKey: ecdh.getPrivateKey(),
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: randomBytes(16).toString('base64url'),
  };
}

const hmac = (key: Uint8Array, data: Uint8Array) => createHmac('sha256', key).update(data).digest();

/** RFC 8291 decryption of an aes128gcm body (single record), as the browser does it. */
export function decryptPushBody(body: Buffer, keys: SubscriberKeys): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const asPublic = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (record.length > recordSize) throw new Error(`record of ${record.length} bytes exceeds rs ${recordSize}`);
  const ua = createECDH('prime256v1');
  ua.setPrivateKey(keys.privateKey);
  const uaPublic = Buffer.from(keys.p256dh, 'base64url');
  const prkKey = hmac(Buffer.from(keys.auth, 'base64url'), ua.computeSecret(asPublic));
  const ikm = hmac(prkKey, Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic, Buffer.from([1])]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error('last record lacks the 0x02 padding delimiter');
  return padded.subarray(0, end);
}

export interface VerifiedVapid {
  claims: { aud: string; exp: number; sub: string };
  jwt: string;
}

/** Checks `Authorization: vapid t=..., k=...` against the expected public key; throws when it does not hold. */
export function verifyVapidAuthorization(header: string | undefined, expectedPublicKey: string): VerifiedVapid {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(header ?? '');
  if (!match) throw new Error(`not a VAPID authorization header: ${header}`);
  const [, jwt, key] = match as unknown as [string, string, string];
  if (key !== expectedPublicKey) throw new Error('VAPID k= is not the site public key');
  const [head, payload, signature] = jwt.split('.') as [string, string, string];
  const header64 = JSON.parse(Buffer.from(head, 'base64url').toString()) as { alg: string };
  if (header64.alg !== 'ES256') throw new Error(`VAPID JWT alg is ${header64.alg}`);
  const point = Buffer.from(key, 'base64url');
  const publicKey = createPublicKey({
    format: 'jwk',
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
  });
  const valid = verify(
    'sha256',
    Buffer.from(`${head}.${payload}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!valid) throw new Error('VAPID JWT signature does not verify');
  return { claims: JSON.parse(Buffer.from(payload, 'base64url').toString()) as VerifiedVapid['claims'], jwt };
}
