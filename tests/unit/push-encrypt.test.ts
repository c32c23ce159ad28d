import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { encryptPayload, MAX_PAYLOAD_BYTES } from '../../server/push/encrypt.js';
import { createSubscriberKeys, decryptPushBody, type SubscriberKeys } from '../support/fake-push-service.js';

const webPush = createRequire(import.meta.url)('web-push') as {
  encrypt(p256dh: string, auth: string, payload: string | Buffer, encoding: string): { cipherText: Buffer };
};

// RFC 8291 Appendix A (the worked example of section 5).
const RFC = {
  plaintext: 'When I grow up, I want to be a watermelon',
  asPrivate: 'yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw',
  uaPrivate: 'q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94',
  uaPublic: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
  auth: 'BTBZMqHH6r4Tts7J_aSIgg',
  salt: 'DGv6ra1nlYgDCS1FRnbzlw',
  body:
    'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_' +
    'yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
};
const rfcSubscriber: SubscriberKeys = { privateKey: Buffer.from(RFC.uaPrivate, 'base64url'), p256dh: RFC.uaPublic, auth: RFC.auth };

describe('encryptPayload (RFC 8291 aes128gcm)', () => {
  it('reproduces the RFC 8291 example byte for byte with its salt and sender key', () => {
    const body = encryptPayload(
      RFC.plaintext,
      { p256dh: RFC.uaPublic, auth: RFC.auth },
      {
        salt: Buffer.from(RFC.salt, 'base64url'),
        senderPrivateKey: Buffer.from(RFC.asPrivate, 'base64url'),
      },
    );
    expect(body.toString('base64url')).toBe(RFC.body);
  });

  it('the test decryptor reads the RFC example body', () => {
    expect(decryptPushBody(Buffer.from(RFC.body, 'base64url'), rfcSubscriber).toString()).toBe(RFC.plaintext);
  });

  it('round-trips text and bytes with a fresh salt and key per message, rs 4096 in the header', () => {
    const keys = createSubscriberKeys();
    const text = JSON.stringify({ title: 'Ünïcode ✓', body: 'x'.repeat(1000) });
    const first = encryptPayload(text, keys);
    const second = encryptPayload(text, keys);
    expect(first.equals(second)).toBe(false);
    // RFC 8291 section 3.1: a new sender key pair for each message (the key id, bytes 21-85), and a new salt
    expect(first.subarray(21, 86).equals(second.subarray(21, 86))).toBe(false);
    expect(first.subarray(0, 16).equals(second.subarray(0, 16))).toBe(false);
    expect(first.readUInt32BE(16)).toBe(4096);
    expect(first[20]).toBe(65);
    expect(decryptPushBody(first, keys).toString()).toBe(text);
    const bytes = new Uint8Array([0, 1, 2, 255, 0]);
    expect([...decryptPushBody(encryptPayload(bytes, keys), keys)]).toEqual([...bytes]);
  });

  it('a tampered body does not decrypt', () => {
    const keys = createSubscriberKeys();
    const body = encryptPayload('hello', keys);
    body[body.length - 20]! ^= 1;
    expect(() => decryptPushBody(body, keys)).toThrow();
  });

  it('agrees with the web-push package: our decryptor reads its output, and bodies are the same length', () => {
    const keys = createSubscriberKeys();
    const payload = '{"title":"Sale","body":"Fifty percent off"}';
    const theirs = webPush.encrypt(keys.p256dh, keys.auth, payload, 'aes128gcm').cipherText;
    expect(decryptPushBody(theirs, keys).toString()).toBe(payload);
    expect(encryptPayload(payload, keys).length).toBe(theirs.length);
  });

  it('accepts exactly 3993 bytes and refuses 3994 with a message naming the size', () => {
    const keys = createSubscriberKeys();
    expect(MAX_PAYLOAD_BYTES).toBe(3993);
    const largest = encryptPayload('a'.repeat(3993), keys);
    expect(largest.length).toBe(4096);
    expect(() => encryptPayload('a'.repeat(3994), keys)).toThrow(expect.objectContaining({ code: 'E_PAYLOAD_TOO_LARGE' }));
    expect(() => encryptPayload('a'.repeat(5000), keys)).toThrow('push payload is 5000 bytes; Web Push allows at most 3993 bytes');
  });

  it('names a malformed subscription key', () => {
    expect(() => encryptPayload('x', { p256dh: 'abc', auth: RFC.auth })).toThrow(/"p256dh" must be 65 bytes/);
    expect(() => encryptPayload('x', { p256dh: RFC.uaPublic, auth: 'abc' })).toThrow(/"auth" must be 16 bytes/);
  });
});
