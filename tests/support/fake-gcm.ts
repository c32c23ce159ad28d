// A stand-in for Google's push check-in and registration servers, so Chromium's real
// pushManager.subscribe() resolves offline (docs/testing.md, "A real pushManager.subscribe()").
import { createServer, type Server } from 'node:http';
import { borrowChromium, type ChromiumOptions, type TestBrowser } from './browser.ts';
import { closeServer } from './close-server.ts';

function fixed64(value: bigint): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(value);
  return bytes;
}

/** AndroidCheckinResponse { stats_ok: true (1), android_id (7, fixed64), security_token (8, fixed64) }. */
export function checkinResponse(androidId = 0x1234_5678_9abc_def0n, securityToken = 0x0fed_cba9_8765_4321n): Buffer {
  return Buffer.concat([Buffer.from([0x08, 0x01, 0x39]), fixed64(androidId), Buffer.from([0x41]), fixed64(securityToken)]);
}

export interface FakeGcm {
  port: number;
  /** Chromium flags that point its push client at this server. */
  chromiumArgs: string[];
  registrations: number;
  close(): Promise<void>;
}

export async function startFakeGcm(): Promise<FakeGcm> {
  let registrations = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url?.startsWith('/checkin')) {
        response.writeHead(200, { 'content-type': 'application/x-protobuf' });
        response.end(checkinResponse());
      } else if (request.url?.startsWith('/register')) {
        registrations += 1;
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end(`token=fake-gcm-token-${registrations}-${Date.now()}`);
      } else {
        response.writeHead(404);
        response.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref(); // a worker's shared one (below) does not hold the worker open
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    chromiumArgs: [
      `--gcm-checkin-url=http://127.0.0.1:${port}/checkin`,
      `--gcm-registration-url=http://127.0.0.1:${port}/register`,
      '--gcm-mcs-endpoint=https://127.0.0.1:9',
    ],
    get registrations() {
      return registrations;
    },
    close: () => closeServer(server),
  };
}

let workerGcm: Promise<FakeGcm> | undefined;

/**
 * One fake GCM for every file a test worker runs (the end-to-end files of a worker run one after the other and
 * borrow its Chromium, browser.ts's `borrowChromium`, which is launched with these flags): its `close` does nothing,
 * the server ends with the worker.
 */
export function sharedFakeGcm(): Promise<FakeGcm> {
  workerGcm ??= startFakeGcm().then((gcm) => ({
    port: gcm.port,
    chromiumArgs: gcm.chromiumArgs,
    get registrations() {
      return gcm.registrations;
    },
    close: async () => {},
  }));
  return workerGcm;
}

/** This worker's fake GCM (sharedFakeGcm) and a borrowed Chromium whose push client uses it. */
export async function borrowChromiumWithGcm(options?: ChromiumOptions): Promise<{ gcm: FakeGcm; browser: TestBrowser }> {
  const gcm = await sharedFakeGcm();
  return { gcm, browser: await borrowChromium(gcm.chromiumArgs, options) };
}
