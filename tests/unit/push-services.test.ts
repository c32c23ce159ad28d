// The push services allowlist: which endpoints the provider accepts and posts to, and which addresses count
// as private.
import { describe, expect, it } from 'vitest';
import { isPrivateAddress, PushServiceAllowlist } from '../../server/push/push-services.ts';

describe('the known push services (the default list)', () => {
  const known = PushServiceAllowlist.fromSetting(undefined);

  it.each([
    'https://fcm.googleapis.com/fcm/send/abc:def',
    'https://android.googleapis.com/gcm/send/abc',
    'https://jmt17.google.com/fcm/send/abc',
    'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
    'https://wns2-par02p.notify.windows.com/w/?token=BQYAAA',
    'https://web.push.apple.com/QGuQyavXutnMH',
  ])('allows %s', (endpoint) => {
    expect(known.allows(endpoint)).toBe(true);
  });

  it.each([
    'https://127.0.0.1:18443/internal/admin/reset?confirm=yes',
    'https://attacker.example/push/2',
    'http://fcm.googleapis.com/fcm/send/abc',
    'https://fcm.googleapis.com:8443/fcm/send/abc',
    'https://user@fcm.googleapis.com/fcm/send/abc',
    'https://fcm.googleapis.com.attacker.example/fcm/send/abc',
    'https://notify.windows.com/w/',
    'https://evilnotify.windows.com/w/',
    'https://www.google.com/fcm/send/abc',
    'not a url',
  ])('refuses %s', (endpoint) => {
    expect(known.allows(endpoint)).toBe(false);
  });

  it('lets none of them resolve to a private address', () => {
    expect(known.allowsPrivateAddress(new URL('https://fcm.googleapis.com/fcm/send/abc'))).toBe(false);
  });
});

describe('PUSHKIT_PUSH_SERVICES', () => {
  it('replaces the list; its exact origins may be on private addresses, its wildcards may not', () => {
    const list = PushServiceAllowlist.fromSetting(' https://127.0.0.1:8443 , https://*.push.example/ ');
    expect(list.allows('https://127.0.0.1:8443/push/1')).toBe(true);
    expect(list.allows('https://a.push.example/push/1')).toBe(true);
    expect(list.allows('https://fcm.googleapis.com/fcm/send/abc')).toBe(false);
    expect(list.allowsPrivateAddress(new URL('https://127.0.0.1:8443/push/1'))).toBe(true);
    expect(list.allowsPrivateAddress(new URL('https://a.push.example/push/1'))).toBe(false);
  });

  it('reads the environment variable, and falls back to the known list when it is empty', () => {
    expect(PushServiceAllowlist.fromEnvironment({ PUSHKIT_PUSH_SERVICES: 'https://localhost:9' }).allows('https://localhost:9/p')).toBe(
      true,
    );
    expect(PushServiceAllowlist.fromEnvironment({ PUSHKIT_PUSH_SERVICES: '' }).allows('https://fcm.googleapis.com/fcm/send/a')).toBe(true);
  });

  it.each(['http://127.0.0.1:8443', 'https://push.example/path', 'push.example', 'https://push.example/?q=1'])(
    'refuses the entry %s',
    (entry) => {
      expect(() => PushServiceAllowlist.fromSetting(entry)).toThrow(expect.objectContaining({ code: 'E_PUSH_SERVICES_SETTING' }));
    },
  );
});

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
  ])('%s is private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });
  it.each(['142.250.74.106', '2a00:1450:4007:80e::200a', '8.8.8.8', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});
