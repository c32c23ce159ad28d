// When a subscriber's own clock first shows a time of day (server/campaigns/local-time.ts).
import { describe, expect, it } from 'vitest';
import { nextLocalTime } from '../../server/campaigns/local-time.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const from = Date.parse('2026-11-23T20:00:00Z');

describe('nextLocalTime', () => {
  it.each([
    ['Europe/Paris', '2026-11-24T08:00:00.000Z'],
    ['America/New_York', '2026-11-24T14:00:00.000Z'],
    ['Asia/Tokyo', '2026-11-24T00:00:00.000Z'],
    // UTC+14: it is already 10:00 on the 24th there, so the next 09:00 is a day later
    ['Pacific/Kiritimati', '2026-11-24T19:00:00.000Z'],
  ])('09:00 in %s', (timezone, expected) => {
    expect(iso(nextLocalTime({ timezone, timezoneOffset: null }, '09:00', from))).toBe(expected);
  });

  it('today when the time is still ahead, the same instant when it is now', () => {
    expect(iso(nextLocalTime({ timezone: 'Europe/Paris', timezoneOffset: null }, '22:30', from))).toBe('2026-11-23T21:30:00.000Z');
    expect(iso(nextLocalTime({ timezone: 'Europe/Paris', timezoneOffset: null }, '21:00', from))).toBe('2026-11-23T20:00:00.000Z');
  });

  it('follows daylight saving time: 09:00 in Paris is 07:00 UTC in summer', () => {
    expect(iso(nextLocalTime({ timezone: 'Europe/Paris', timezoneOffset: null }, '09:00', Date.parse('2026-07-01T00:00:00Z')))).toBe(
      '2026-07-01T07:00:00.000Z',
    );
  });

  it('falls back to the offset for an unknown zone name, and to UTC without either', () => {
    expect(iso(nextLocalTime({ timezone: 'Not/AZone', timezoneOffset: 300 }, '09:00', from))).toBe('2026-11-24T14:00:00.000Z');
    expect(iso(nextLocalTime({ timezone: null, timezoneOffset: -330 }, '09:00', from))).toBe('2026-11-24T03:30:00.000Z');
    expect(iso(nextLocalTime({ timezone: null, timezoneOffset: null }, '09:00', from))).toBe('2026-11-24T09:00:00.000Z');
  });
});
