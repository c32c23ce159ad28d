import { describe, expect, it } from 'vitest';
import { VapidAuthorizer } from '../../server/push/vapid.js';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.js';
import { verifyVapidAuthorization } from '../support/fake-push-service.js';

describe('VAPID (RFC 8292)', () => {
  it('signs an ES256 JWT for the endpoint origin, 12 hours, with the contact, verifiable with the public key', () => {
    const keys = generateVapidKeyPair();
    const now = Date.UTC(2026, 0, 1);
    const authorizer = new VapidAuthorizer(keys, 'mailto:owner@example.com', () => now);
    const header = authorizer.authorizationFor('https://fcm.googleapis.com/fcm/send/abc:def');
    const { claims } = verifyVapidAuthorization(header, keys.publicKey);
    expect(claims).toEqual({ aud: 'https://fcm.googleapis.com', exp: now / 1000 + 12 * 3600, sub: 'mailto:owner@example.com' });
  });

  it('a JWT signed with another key does not verify', () => {
    const keys = generateVapidKeyPair();
    const other = generateVapidKeyPair();
    const header = new VapidAuthorizer(other, 'https://example.com/contact').authorizationFor('https://push.example/x');
    const forged = header.replace(other.publicKey, keys.publicKey);
    expect(() => verifyVapidAuthorization(forged, keys.publicKey)).toThrow('VAPID JWT signature does not verify');
  });

  it('reuses one token per push-service origin until shortly before it expires', () => {
    const keys = generateVapidKeyPair();
    let now = Date.UTC(2026, 0, 1);
    const authorizer = new VapidAuthorizer(keys, 'mailto:a@b.c', () => now);
    const first = authorizer.authorizationFor('https://fcm.googleapis.com/fcm/send/one');
    expect(authorizer.authorizationFor('https://fcm.googleapis.com/fcm/send/two')).toBe(first);
    const mozilla = authorizer.authorizationFor('https://updates.push.services.mozilla.com/wpush/v2/x');
    expect(mozilla).not.toBe(first);
    expect(verifyVapidAuthorization(mozilla, keys.publicKey).claims.aud).toBe('https://updates.push.services.mozilla.com');
    expect(authorizer.signedCount).toBe(2);

    now += 11 * 3600 * 1000;
    expect(authorizer.authorizationFor('https://fcm.googleapis.com/fcm/send/three')).toBe(first);
    now += 55 * 60 * 1000;
    const renewed = authorizer.authorizationFor('https://fcm.googleapis.com/fcm/send/three');
    expect(renewed).not.toBe(first);
    expect(authorizer.signedCount).toBe(3);
  });

  it('refuses a subject that is not mailto: or https: and a malformed key', () => {
    const keys = generateVapidKeyPair();
    expect(() => new VapidAuthorizer(keys, 'owner@example.com')).toThrow(
      'VAPID subject must be a mailto: or https: URL, got "owner@example.com"',
    );
    expect(() => new VapidAuthorizer({ ...keys, privateKey: 'abc' }, 'mailto:a@b.c')).toThrow('VAPID private key must be 32 bytes');
  });
});
