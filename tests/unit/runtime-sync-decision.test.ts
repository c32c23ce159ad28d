// The update decision of spec section 4, one step at a time and in order.
import { describe, expect, it, vi } from 'vitest';
import { decideUpdate, inSync as coreInSync, readState, subscriptionIdOf } from '../../runtime/sync.ts';
import { createServices } from '../../runtime/create-services.ts';
import { site } from '../fixtures/site-module.ts';
import type { StoredState } from '../../runtime/sync.ts';

const current = { subscriptionId: 'id-1', endpoint: 'https://push.test/send/id-1' };
const inSync: StoredState = {
  subscriberId: 'sub-1',
  secret_: 'secret-1',
  subscriptionId: 'id-1',
  endpoint: current.endpoint,
  status: 'subscribed',
  dbStatus_: true,
  language_: 'en-US',
};
const decide = (stored: Partial<StoredState>, now = current, language = 'en-US') => decideUpdate({ ...inSync, ...stored }, now, language);

describe('update decision', () => {
  it('1. db status false: insert-failed, before every other step', () => {
    expect(decide({ dbStatus_: false })).toBe('insert-failed');
    expect(decide({ dbStatus_: false, subscriberId: undefined, subscriptionId: 'other' }, current, 'fr')).toBe('insert-failed');
  });

  it('2. same id and no subscriber id: insert, before the id comparison', () => {
    expect(decide({ subscriberId: undefined })).toBe('insert');
    expect(decide({ subscriberId: undefined, endpoint: 'https://push.test/old' })).toBe('insert');
  });

  it('3. id or endpoint differs: update without a previous id, update-google-registration-id with one', () => {
    expect(decide({ subscriptionId: 'id-0' })).toBe('update-google-registration-id');
    expect(decide({ endpoint: 'https://push.test/send/moved' })).toBe('update-google-registration-id');
    expect(decide({ subscriptionId: undefined })).toBe('update');
    expect(decide({ subscriptionId: undefined, subscriberId: undefined })).toBe('update');
    expect(decide({ subscriptionId: 'id-0' }, current, 'fr')).toBe('update-google-registration-id');
  });

  it('4. only the language differs: http-sync', () => {
    expect(decide({}, current, 'fr-FR')).toBe('http-sync');
    expect(decide({ language_: undefined })).toBe('http-sync');
  });

  it('a subscriber without a secret (synced before secrets existed): http-sync, which issues one', () => {
    expect(decide({ secret_: undefined })).toBe('http-sync');
    expect(decide({ secret_: undefined, subscriptionId: 'id-0' })).toBe('update-google-registration-id');
  });

  it('5. otherwise: already-updated', () => {
    expect(decide({})).toBe('already-updated');
    expect(decide({ dbStatus_: undefined })).toBe('already-updated');
  });

  it("push.js's core reads an in-sync view as the decision does, on every mix of stored values", () => {
    const stored = new Map<string, string>();
    vi.stubGlobal('localStorage', { getItem: (key: string) => stored.get(key) ?? null });
    vi.stubGlobal('navigator', { language: 'en-US' });
    const services = createServices(site, () => Promise.resolve(null));
    // each stored value: in sync, different, corrupted (fails its pattern), absent
    const choices: Array<[string, Array<string | undefined>]> = [
      ['wingify_push_db_status', ['true', 'false', 'maybe', undefined]],
      ['wingify_push_subscriber_id', ['sub-1', '<x>', 'null', undefined]],
      ['pushkit_subscriber_secret', ['secret-1', 'bad secret', undefined]],
      ['wingify_push_subscription_id', ['id-1', 'id-0', 'id 1', undefined]],
      ['wingify_push_subscription_endpoint', [current.endpoint, 'https://push.test/send/moved', 'push.test/send/id-1', undefined]],
      ['wingify_push_subscriber_lang', ['en-US', 'fr', 'en_US', undefined]],
    ];
    let mixes = 0;
    const visit = (index: number): void => {
      if (index === choices.length) {
        mixes++;
        const decided = decideUpdate(readState(services), current, 'en-US') === 'already-updated';
        expect(coreInSync(services, current.endpoint), JSON.stringify([...stored])).toBe(decided);
        return;
      }
      const [key, values] = choices[index]!;
      for (const value of values) {
        if (value === undefined) stored.delete(key);
        else stored.set(key, value);
        visit(index + 1);
      }
    };
    visit(0);
    vi.unstubAllGlobals();
    expect(mixes).toBe(3072);
  });

  it('the subscription id is the last path segment of the endpoint', () => {
    expect(subscriptionIdOf('https://fcm.googleapis.com/fcm/send/abc:APA91b-x_y')).toBe('abc:APA91b-x_y');
  });
});
