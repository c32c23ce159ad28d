// sendPush with `http2: true` to a push service that speaks only HTTP/2 over TLS (as FCM and Mozilla's do
// beside HTTP/1.1): the message arrives readable, with its Web Push headers, over an HTTP/2 stream.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PushServiceAllowlist } from '../../server/push/push-services.ts';
import { closePushConnections, sendPush } from '../../server/push/send.ts';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.ts';
import { createSelfSignedCertificate, createSubscriberKeys, decryptPushBody } from '../support/fake-push-service.ts';

interface Received {
  httpVersion: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const dir = mkdtempSync(join(tmpdir(), 'pk-h2-'));
const received: Received[] = [];
let server: Http2SecureServer;
let origin = '';
let ca = '';

beforeAll(async () => {
  const { keyPath, certPath } = createSelfSignedCertificate(dir);
  ca = readFileSync(certPath, 'utf8');
  server = createSecureServer({ key: readFileSync(keyPath), cert: ca, allowHTTP1: false }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ httpVersion: request.httpVersion, headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await closePushConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('sendPush over HTTP/2', () => {
  it('delivers a readable message to an HTTP/2-only push service when http2 is on', async () => {
    const keys = createSubscriberKeys();
    const options = {
      vapid: generateVapidKeyPair(),
      subject: 'mailto:owner@example.com',
      ca,
      pushServices: PushServiceAllowlist.fromSetting([origin]),
      ttl: 60,
      http2: true,
    };
    const result = await sendPush({ endpoint: `${origin}/push/1`, keys }, '{"title":"over h2"}', options);
    expect(result).toEqual({ outcome: 'delivered', statusCode: 201 });
    expect(received).toHaveLength(1);
    expect(received[0]!.httpVersion).toBe('2.0');
    expect(received[0]!.headers).toMatchObject({ ttl: '60', 'content-encoding': 'aes128gcm' });
    expect(decryptPushBody(received[0]!.body, keys).toString('utf8')).toBe('{"title":"over h2"}');
  });

  it('does not reach an HTTP/2-only push service with http2 off (the default: HTTP/1.1 only)', async () => {
    const keys = createSubscriberKeys();
    const options = {
      vapid: generateVapidKeyPair(),
      subject: 'mailto:owner@example.com',
      ca,
      pushServices: PushServiceAllowlist.fromSetting([origin]),
    };
    await expect(sendPush({ endpoint: `${origin}/push/2`, keys }, '{"title":"h1"}', options)).rejects.toThrow();
    expect(received.filter((push) => push.headers[':path'] === '/push/2')).toHaveLength(0);
  });
});
