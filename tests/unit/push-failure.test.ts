// The reasons a failed push is kept with (server/push/push-failure.ts): network errors by class, a push
// service's reason from its body, and never a secret or more than 256 bytes.
import { describe, expect, it } from 'vitest';
import { answerReason, errorReason, networkReason } from '../../server/push/push-failure.ts';

const error = (code: string, cause?: unknown) => Object.assign(new Error(`failed: ${code}`), { code, cause });

describe('delivery failure reasons', () => {
  it('classifies network errors, their causes included', () => {
    expect(networkReason(error('ECONNREFUSED'))).toBe('network: connection refused');
    expect(networkReason(new TypeError('fetch failed', { cause: error('ENOTFOUND') }))).toBe('network: DNS');
    expect(networkReason(error('EAI_AGAIN'))).toBe('network: DNS');
    expect(networkReason(error('DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe('network: TLS');
    expect(networkReason(error('ERR_TLS_CERT_ALTNAME_INVALID'))).toBe('network: TLS');
    expect(networkReason(error('UND_ERR_CONNECT_TIMEOUT'))).toBe('network: timeout');
    expect(networkReason(error('UND_ERR_HEADERS_TIMEOUT'))).toBe('network: timeout');
    expect(networkReason(error('ECONNRESET'))).toBe('network: reset');
    expect(networkReason(error('UND_ERR_SOCKET', error('ECONNRESET')))).toBe('network: reset');
    expect(networkReason(new Error('push payload is 4000 bytes'))).toBeUndefined();
    expect(errorReason(new Error('push payload is 4000 bytes'))).toBe('push payload is 4000 bytes');
  });

  it("reads the push service's reason: JSON reason, error message, text, else the status text", () => {
    expect(answerReason(403, '{"reason":"BadJwtToken"}')).toBe('BadJwtToken');
    expect(answerReason(403, '{"error":{"code":403,"message":"invalid JWT provided"}}')).toBe('invalid JWT provided');
    expect(answerReason(401, '{"code":401,"errno":109,"error":"Unauthorized","message":"Invalid Authorization"}')).toBe('Unauthorized');
    expect(answerReason(413, '')).toBe('Payload Too Large');
    expect(answerReason(400, 'line one\n\u001b[31mline two')).toBe('line one [31mline two');
  });

  it('cuts out the request secrets and token shapes, and keeps at most 256 bytes of whole characters', () => {
    const endpoint = 'https://web.push.apple.com/QGuQyavXutnMHxxxxxxxxxxxxxxxxxxxxx1234';
    const jwt = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9.eyJhdWQiOiJodHRwcyJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
    const authorization = `vapid t=${jwt}, k=BPublicKeyPublicKeyPublicKeyPublicKey`;
    const reason = answerReason(
      403,
      `${authorization} ${endpoint} QGuQyavXutnMHxxxxxxxxxxxxxxxxxxxxx1234 sig c2lnbmF0dXJlLXNpZ25hdHVyZQ Bearer abc`,
      {
        endpoint,
        authorization,
      },
    );
    for (const secret of [jwt, 'c2lnbmF0dXJlLXNpZ25hdHVyZQ', 'BPublicKey', 'QGuQyavXutnMH', 'abc']) expect(reason).not.toContain(secret);
    const long = answerReason(400, 'é'.repeat(300));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(256);
    expect(long).toBe('é'.repeat(128));
  });
});
