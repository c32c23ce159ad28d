// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { addSubscriberToSegment, addToSegment, removeSubscriberFromSegment } from '../../runtime/segment-api.ts';
import { SUBSCRIBER_SECRET_OF_DOUBLE, servicesDouble } from '../support/services-double.ts';

const NAME_29 = 'a'.repeat(29);
const NAME_30 = 'a'.repeat(30);

describe('addSubscriberToSegment name rules', () => {
  const table: [string, string, boolean][] = [
    ['letters, digits, underscore, hyphen', 'Vip_buyers-2024', true],
    ['29 characters', NAME_29, true],
    ['30 characters', NAME_30, false],
    ['a space', 'vip buyers', false],
    ['a dot', 'vip.buyers', false],
    ['a quote', "vip'", false],
    ['non-ASCII letters', 'café', false],
    ['empty', '', false],
  ];
  for (const [what, name, valid] of table) {
    it(`${what}: ${valid ? 'added' : 'false and no call'}`, async () => {
      const { services, calls } = servicesDouble();
      const callback = vi.fn();
      expect(await addSubscriberToSegment(services, name, callback)).toBe(valid);
      expect(callback).toHaveBeenCalledWith(valid);
      expect(calls.length).toBe(valid ? 2 : 0);
    });
  }
});

describe('addSubscriberToSegment', () => {
  it('calls /as with customTag and fires the add-segment beacon', async () => {
    const { services, calls } = servicesDouble();
    expect(await addToSegment(services, 'vip')).toBe(true);
    expect(calls).toContainEqual({
      kind: 'get',
      url: 'https://services.test/as',
      params: {
        id: 'vip',
        customer_hash: services.site_.hash,
        'subscriber_list[]': 'sub-1',
        'subscriberSecret[]': SUBSCRIBER_SECRET_OF_DOUBLE,
        customTag: 'vip',
      },
    });
    expect(calls).toContainEqual({
      kind: 'beacon',
      url: 'https://sync.test/c.gif',
      params: {
        hash: services.site_.hash,
        subscriberId: 'sub-1',
        subscriberSecret: SUBSCRIBER_SECRET_OF_DOUBLE,
        subscriptionId: 'subscription-1',
        segment: 'vip',
        action: 'add-segment',
      },
    });
  });

  it('no subscriber id: -1 ("Invalid Subscriber Id") and no call', async () => {
    const { services, calls } = servicesDouble({ subscriberId: undefined });
    const callback = vi.fn();
    expect(await addSubscriberToSegment(services, 'vip', callback)).toBe(-1);
    expect(callback).toHaveBeenCalledWith(-1);
    expect(calls).toEqual([]);
  });

  it('a failed call resolves false', async () => {
    const { services } = servicesDouble({ reply: () => new Error('network') });
    const callback = vi.fn();
    expect(await addSubscriberToSegment(services, 'vip', callback)).toBe(false);
    expect(callback).toHaveBeenCalledWith(false);
  });

  it('a throwing callback does not reject', async () => {
    const { services } = servicesDouble();
    await expect(
      addSubscriberToSegment(services, 'vip', () => {
        throw new Error('page bug');
      }),
    ).resolves.toBe(true);
  });
});

describe('removeSubscriberFromSegment', () => {
  it('sends the remove-segment beacon', async () => {
    const { services, calls } = servicesDouble();
    const callback = vi.fn();
    expect(await removeSubscriberFromSegment(services, 'vip', callback)).toBe(true);
    expect(callback).toHaveBeenCalledWith(true);
    expect(calls).toEqual([
      {
        kind: 'beacon',
        url: 'https://sync.test/c.gif',
        params: {
          hash: services.site_.hash,
          subscriberId: 'sub-1',
          subscriberSecret: SUBSCRIBER_SECRET_OF_DOUBLE,
          subscriptionId: 'subscription-1',
          segment: 'vip',
          action: 'remove-segment',
        },
      },
    ]);
  });

  it('length rule only for a non-empty name: empty passes, 30 characters is false', async () => {
    const empty = servicesDouble();
    expect(await removeSubscriberFromSegment(empty.services, '')).toBe(true);
    expect(empty.calls).toHaveLength(1);
    const long = servicesDouble();
    expect(await removeSubscriberFromSegment(long.services, NAME_30)).toBe(false);
    expect(long.calls).toEqual([]);
    expect(await removeSubscriberFromSegment(long.services, NAME_29)).toBe(true);
  });

  it('bad characters: false; no subscriber id: -1', async () => {
    const { services, calls } = servicesDouble();
    expect(await removeSubscriberFromSegment(services, 'a b')).toBe(false);
    expect(calls).toEqual([]);
    expect(await removeSubscriberFromSegment(servicesDouble({ subscriberId: undefined }).services, 'vip')).toBe(-1);
  });
});
