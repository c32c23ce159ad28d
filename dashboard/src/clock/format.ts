// One way to write an instant on screen: in the owner's display zone (clock/zone.ts), with the zone's short name,
// and the same instant in UTC for the hover title. Also the way back: a wall-clock time the owner typed "on
// their clock" to the UTC instant it means, through the display zone, never the machine's zone.

const pad = (value: number) => String(value).padStart(2, '0');

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const partsFormats = new Map<string, Intl.DateTimeFormat>();

function wallClockOf(instant: Date, zone: string): WallClock {
  let format = partsFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    partsFormats.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(instant).map((part) => [part.type, part.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The zone's short name at that instant: `UTC`, `GMT+1`, `EST`. */
export function zoneName(instant: Date, zone: string): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' })
    .formatToParts(instant)
    .find((entry) => entry.type === 'timeZoneName');
  return part?.value ?? zone;
}

/** Milliseconds the zone's clock is ahead of UTC at that instant. */
function offsetAt(instant: number, zone: string): number {
  const wall = wallClockOf(new Date(instant), zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

const parse = (value: string | Date): Date | null => {
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
};

/** `2026-11-26 19:30 GMT+1`: the instant on the display zone's clock. */
export function formatInstant(value: string | Date, zone: string): string {
  const date = parse(value);
  if (!date) return '—';
  const wall = wallClockOf(date, zone);
  return `${wall.year}-${pad(wall.month)}-${pad(wall.day)} ${pad(wall.hour)}:${pad(wall.minute)} ${zoneName(date, zone)}`;
}

/** `2026-11-26 18:30 UTC`: the hover text beside every shown time. */
export function formatUtc(value: string | Date): string {
  const date = parse(value);
  if (!date) return '—';
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The UTC instant of `2026-11-27T09:30` (a datetime-local value) on `zone`'s clock; null when not a time. */
export function wallClockToInstant(local: string, zone: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  if (Number.isNaN(asUtc)) return null;
  // the offset at the guess, then again at the answer: right across a DST change (a skipped hour moves forward)
  let instant = asUtc - offsetAt(asUtc, zone);
  instant = asUtc - offsetAt(instant, zone);
  return new Date(instant);
}

/** The datetime-local value (`2026-11-27T09:30`) of an instant on `zone`'s clock. */
export function instantToWallClock(value: string | Date, zone: string): string {
  const date = parse(value);
  if (!date) return '';
  const wall = wallClockOf(date, zone);
  return `${wall.year}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}`;
}
