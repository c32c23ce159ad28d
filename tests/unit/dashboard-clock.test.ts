import { describe, expect, it } from 'vitest';
import { formatInstant, formatUtc, instantToWallClock, wallClockToInstant } from '../../dashboard/src/clock/format.ts';

describe("the owner's clock", () => {
  it('reads 09:30 typed on a Berlin clock as 08:30 UTC in winter and 07:30 UTC in summer', () => {
    expect(wallClockToInstant('2026-11-27T09:30', 'Europe/Berlin')?.toISOString()).toBe('2026-11-27T08:30:00.000Z');
    expect(wallClockToInstant('2026-07-01T09:30', 'Europe/Berlin')?.toISOString()).toBe('2026-07-01T07:30:00.000Z');
    expect(wallClockToInstant('2026-11-27T09:30', 'America/New_York')?.toISOString()).toBe('2026-11-27T14:30:00.000Z');
    expect(wallClockToInstant('not a time', 'UTC')).toBeNull();
  });

  it('moves a time in the hour a DST change skips forward, not back', () => {
    // 2026-03-29 02:30 does not exist in Berlin (02:00 -> 03:00): it is read as 03:30 summer time
    const instant = wallClockToInstant('2026-03-29T02:30', 'Europe/Berlin')!;
    expect(instant.toISOString()).toBe('2026-03-29T01:30:00.000Z');
    expect(instantToWallClock(instant, 'Europe/Berlin')).toBe('2026-03-29T03:30');
  });

  it('writes an instant on the display clock with its zone, and in UTC for the hover', () => {
    expect(formatInstant('2026-11-26T18:30:00Z', 'Europe/Berlin')).toBe('2026-11-26 19:30 GMT+1');
    expect(formatInstant('2026-11-26T18:30:00Z', 'UTC')).toBe('2026-11-26 18:30 UTC');
    expect(formatUtc('2026-11-26T18:30:00Z')).toBe('2026-11-26 18:30 UTC');
    expect(instantToWallClock('2026-11-26T23:30:00Z', 'Asia/Tokyo')).toBe('2026-11-27T08:30');
    expect(formatInstant('nonsense', 'UTC')).toBe('—');
  });
});
