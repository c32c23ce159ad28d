// The sync form's fast path (server/sync/sync-payload.ts) against its zod schema: on random forms, some valid and most
// broken in one field or another, whatever the fast path accepts zod accepts with the same value; what it is not sure
// of goes to zod, which names the parameter. The forms browsers send (the runtime's, the bench's) take the fast path.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SYNC_ACTIONS } from '../../contract/sync.ts';
import { parseParams } from '../../server/http/params.ts';
import { parseSyncFormFast, syncPayloadSchema } from '../../server/sync/sync-payload.ts';
import { hostileString } from '../support/hostile-strings.ts';

const KEY = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';
const SECRET = 'oMI2KGm4uNsKFv_2oqmNvgoMI2KGm4uNsKFv_2oqmNv';
const ID = '6f1c2a8e-4b7d-4f0e-9a51-2c3d4e5f6a7b';
const subscription = (fields: Record<string, unknown>) => JSON.stringify(fields);
const SUBSCRIPTION = subscription({
  endpoint: 'https://fcm.googleapis.com/fcm/send/abc:def',
  expirationTime: null,
  keys: { p256dh: KEY, auth: 'oMI2KGm4uNsKFv_2oqmNvg' },
});

/** What zod gives: the value, or the error's code and message. */
function viaZod(form: unknown): { value: unknown } | { error: string } {
  try {
    return { value: parseParams(syncPayloadSchema, form, 'body') };
  } catch (error) {
    return { error: `${(error as { code?: string }).code}: ${(error as Error).message}` };
  }
}

const long = (length: number, char = 'a') => char.repeat(length);
const MAXIMA = [12, 32, 35, 43, 64, 128, 256, 1024, 2048, 4096];
/** Text of each length around each maximum that each field's pattern accepts (so only the length decides). */
const lengths = (make: (length: number) => string) => MAXIMA.flatMap((max) => [max - 1, max, max + 1].map(make));
const url = (length: number) => `https://bench.example/${long(Math.max(0, length - 22))}`;
const language = (length: number) => (length % 2 === 0 ? 'aa' : 'a') + '-a'.repeat(Math.floor((length - 1) / 2));
const paddedSubscription = (length: number) => {
  const head = '{"endpoint":"https://push.example/1","x":"';
  return `${head}${long(Math.max(0, length - head.length - 2))}"}`;
};
/** Values at the edges of the fields' rules: lengths around each maximum, placeholders, URLs, numbers, flags. */
const EDGES = [
  '',
  'a',
  ' ',
  '0',
  '-1',
  'null',
  'NaN',
  'undefined',
  'true',
  'false',
  '1',
  'TRUE',
  '-0',
  '+5',
  '1e3',
  '0x10',
  '1440',
  '-1440',
  '1441',
  '-1441',
  '999999999999',
  '9999999999999',
  'en-US',
  'fr',
  'en_US',
  'Europe/Paris',
  'Etc/GMT+5',
  'web.com.example',
  'web.',
  'chrome',
  'Chrome Mobile 1.0',
  'chrome!',
  '12345',
  '123a',
  'https://bench.example',
  'http://bench.example/page?q=1',
  'HTTPS://bench.example',
  ' https://bench.example',
  'https://',
  'http://a b',
  'ftp://bench.example',
  'javascript:alert(1)',
  'https://bench.example/\u0000',
  'https://bench.example/😀',
  'https://bench.example/\ud800',
  'abc\u0000',
  'abc\ud800',
  'abc\udfff',
  'a😀b',
  ID,
  SECRET,
  `${SECRET}x`,
  SECRET.slice(1),
  KEY,
  `${KEY}!`,
  ...[12, 32, 35, 43, 64, 128, 256, 1024, 2048, 4096].flatMap((max) => [long(max - 1), long(max), long(max + 1)]),
  ...lengths((length) => long(length)),
  ...lengths((length) => long(length, '1')),
  ...lengths((length) => long(length, 'A')),
  ...lengths(url),
  ...lengths(language),
  ...lengths((length) => `web.${long(length - 4)}`),
  ...lengths(paddedSubscription),
];
const SUBSCRIPTIONS = [
  SUBSCRIPTION,
  subscription({ endpoint: 'https://push.example/1' }),
  subscription({ keys: { p256dh: KEY, auth: 'abc' } }),
  subscription({ endpoint: 'https://push.example/1', keys: { auth: 'abc', p256dh: KEY, extra: 1 }, extra: true, expirationTime: 5 }),
  subscription({ endpoint: 'https://push.example/1', expirationTime: 1.5e12 }),
  subscription({ endpoint: 'https://push.example/1', expirationTime: 'soon' }),
  subscription({ endpoint: 'ftp://push.example/1' }),
  subscription({ endpoint: 42 }),
  subscription({ endpoint: `https://push.example/${long(1010)}` }),
  subscription({ endpoint: 'https://push.example/1', keys: { p256dh: `${KEY}!`, auth: 'abc' } }),
  subscription({ endpoint: 'https://push.example/1', keys: { p256dh: long(129), auth: 'abc' } }),
  subscription({ endpoint: 'https://push.example/1', keys: { p256dh: KEY } }),
  subscription({ endpoint: 'https://push.example/1', keys: null }),
  subscription({ endpoint: 'https://push.example/1', keys: [] }),
  subscription({ endpoint: 'https://push.example/\ud800' }),
  subscription({ endpoint: 'https://push.example/😀' }),
  subscription({ __proto__: { endpoint: 'https://push.example/1' } }),
  '{"endpoint":"https://push.example/1","expirationTime":1e999}',
  '{"__proto__":{"endpoint":"https://push.example/1"}}',
  '{"endpoint":"https://push.example/1"} ',
  '[]',
  'null',
  '42',
  '"https://push.example/1"',
  '{',
  '',
  `{"endpoint":"https://push.example/1","x":"${long(4080)}"}`,
];
const FIELDS = [
  'hash',
  'action',
  'subscription',
  'subscriberId',
  'subscriberSecret',
  'previousSubscriberId',
  'uuid',
  'previousSubscriptionId',
  'subscriptionId',
  'subscriptionEndPoint',
  'origin',
  'firefoxEncryptionKey',
  'browserType',
  'userLanguage',
  'userTimezoneOffset',
  'userTimezone',
  'websitePushId',
  'vapidPublicKey',
  'subscriptionDomainUrl',
  'serviceWorkerPath',
  'subscriptionPageUrl',
  'pageClickTrackingPermission',
  'gcmSenderId',
  'callback',
  'unknownField',
];

/** A form of the runtime's kind: the action's usual fields, valid. */
const validForm = fc.record({
  hash: fc.constantFrom('bench-site-0001', 'a', 'A_b-9'),
  action: fc.constantFrom(...SYNC_ACTIONS),
  subscription: fc.constantFrom(...SUBSCRIPTIONS.slice(0, 5)),
  subscriberId: fc.constantFrom(ID, 'sub.1:2'),
  subscriberSecret: fc.constant(SECRET),
  previousSubscriberId: fc.constant(ID),
  uuid: fc.constant(ID),
  previousSubscriptionId: fc.constant('old-registration'),
  subscriptionId: fc.constant('registration'),
  origin: fc.constant('https://bench.example'),
  browserType: fc.constantFrom('chrome', 'firefox', 'safari'),
  userLanguage: fc.constantFrom('en-US', 'fr'),
  userTimezoneOffset: fc.constantFrom('-60', '0', '330'),
  userTimezone: fc.constantFrom('Europe/Paris', 'America/New_York'),
  subscriptionPageUrl: fc.constant('https://bench.example/page'),
  pageClickTrackingPermission: fc.constantFrom('0', '1', 'true', 'false'),
});

/** A valid form with some fields dropped, emptied, replaced by an edge value, a hostile string or an array. */
const anyForm = fc
  .tuple(
    validForm,
    fc.array(
      fc.tuple(
        fc.constantFrom(...FIELDS),
        fc.oneof(
          fc.constant(undefined),
          fc.constant(''),
          fc.constantFrom(...EDGES),
          fc.constantFrom(...SUBSCRIPTIONS),
          hostileString(3),
          fc.constant(['a', 'b']),
          fc.constant(5),
        ),
      ),
      { maxLength: 4 },
    ),
  )
  .map(([form, changes]) => {
    const changed: Record<string, unknown> = { ...form };
    for (const [field, value] of changes) {
      if (value === undefined) delete changed[field];
      else changed[field] = value;
    }
    return changed;
  });

describe('the sync form fast path', () => {
  it('accepts only what zod accepts, with the same value', () => {
    let fast = 0;
    let accepted = 0;
    fc.assert(
      fc.property(anyForm, fc.boolean(), (form, nullPrototype) => {
        // fast-querystring's forms have no prototype; a JSON body's have Object's
        const input = nullPrototype ? Object.assign(Object.create(null) as object, form) : form;
        const zod = viaZod(input);
        const value = parseSyncFormFast(input);
        if ('value' in zod) accepted += 1;
        if (value === undefined) return;
        fast += 1;
        expect(zod).toEqual({ value });
        expect(JSON.stringify(value)).toBe(JSON.stringify((zod as { value: unknown }).value));
      }),
      { numRuns: 600, seed: 34 },
    );
    // the comparison means something only if both paths accept many of the forms
    expect(fast).toBeGreaterThan(100);
    expect(fast).toBeGreaterThan(accepted * 0.8);
  });

  it('agrees with zod on every field set to every edge value, on a form otherwise valid', () => {
    const base = { hash: 'bench-site-0001', action: 'http-sync', subscriberId: ID, subscriberSecret: SECRET, subscription: SUBSCRIPTION };
    let fast = 0;
    for (const field of FIELDS) {
      for (const value of [...EDGES, ...SUBSCRIPTIONS, ['a', 'b'], 5]) {
        // a form as fast-querystring gives it (the random forms above also try Object's prototype)
        const input = Object.assign(Object.create(null) as object, base, { [field]: value });
        const parsed = parseSyncFormFast(input);
        if (parsed === undefined) continue;
        fast += 1;
        const zod = viaZod(input);
        // (expect only on a difference: 7,000 forms)
        if (!('value' in zod) || !isDeepStrictEqual(zod.value, parsed) || JSON.stringify(parsed) !== JSON.stringify(zod.value)) {
          expect(zod, `${field}: ${JSON.stringify(value).slice(0, 80)}`).toEqual({ value: parsed });
          expect(JSON.stringify(parsed)).toBe(JSON.stringify((zod as { value: unknown }).value));
        }
      }
    }
    expect(fast).toBeGreaterThan(1000);
  });

  it('takes the forms browsers send', () => {
    const forms = [
      {
        hash: 'bench-site-0001',
        action: 'insert',
        subscription: SUBSCRIPTION,
        subscriptionId: 'abc:def',
        browserType: 'chrome',
        origin: 'https://bench.example',
        userLanguage: 'en-US',
        userTimezone: 'Europe/Paris',
        userTimezoneOffset: '-60',
      },
      {
        hash: 'bench-site-0001',
        action: 'http-sync',
        subscriberId: ID,
        subscriberSecret: SECRET,
        subscription: SUBSCRIPTION,
        uuid: '',
        callback: 'pushkit_cb1',
        pageClickTrackingPermission: '1',
      },
      {
        hash: 'bench-site-0001',
        action: 'update',
        subscriberId: ID,
        subscriberSecret: SECRET,
        subscription: SUBSCRIPTION,
        subscriptionId: 'abc:def',
        previousSubscriberId: '',
      },
      { hash: 'bench-site-0001', action: 'unsubscribe-ui', subscriberId: ID, subscriberSecret: SECRET },
      { hash: 'bench-site-0001', action: 'block', uuid: ID, browserType: 'safari' },
    ];
    for (const form of forms) {
      const value = parseSyncFormFast(Object.assign(Object.create(null) as object, form));
      expect(value).toBeDefined();
      expect(viaZod(form)).toEqual({ value });
    }
  });

  it('leaves every refusal to zod', () => {
    for (const form of [
      { hash: 'bench-site-0001', action: 'insert' },
      { hash: 'bench-site-0001', action: 'nope', subscriptionId: 'x' },
      { hash: 'bench-site-0001', action: 'insert', subscriptionId: 'x', subscriberId: 'null' },
      { hash: 'bench-site-0001', action: 'insert', subscriptionId: 'x', userTimezoneOffset: '1441' },
      { action: 'insert', subscriptionId: 'x' },
    ]) {
      expect(parseSyncFormFast(form)).toBeUndefined();
      expect(viaZod(form)).toHaveProperty('error');
    }
  });
});
