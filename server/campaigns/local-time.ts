// When a subscriber's own clock first shows a wall-clock time: a campaign sent "at 09:00 local time" reaches
// each time zone as it gets there. The zone is the subscriber's IANA name (the sync's userTimezone), else its
// UTC offset (userTimezoneOffset, minutes as Date.getTimezoneOffset gives them), else UTC.

export interface SubscriberZone {
  timezone: string | null;
  /** Minutes to add to local time to get UTC (Date.getTimezoneOffset), or null. */
  timezoneOffset: number | null;
}

const formatters = new Map<string, Intl.DateTimeFormat | null>();

/** A formatter for the zone, or null for a name this runtime does not know. */
function formatterOf(timezone: string): Intl.DateTimeFormat | null {
  if (!formatters.has(timezone)) {
    let formatter: Intl.DateTimeFormat | null = null;
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      // RangeError: not a time zone.
    }
    formatters.set(timezone, formatter);
  }
  return formatters.get(timezone)!;
}

/** Minutes the zone is ahead of UTC at `instant`. */
export function zoneOffsetMinutes(zone: SubscriberZone, instant: number): number {
  const formatter = zone.timezone ? formatterOf(zone.timezone) : null;
  if (!formatter) return zone.timezoneOffset === null ? 0 : -zone.timezoneOffset;
  const part = (parts: Intl.DateTimeFormatPart[], type: string) => Number(parts.find((entry) => entry.type === type)!.value);
  const parts = formatter.formatToParts(new Date(instant));
  const wall = Date.UTC(
    part(parts, 'year'),
    part(parts, 'month') - 1,
    part(parts, 'day'),
    part(parts, 'hour'),
    part(parts, 'minute'),
    part(parts, 'second'),
  );
  return Math.round((wall - Math.floor(instant / 1000) * 1000) / 60_000);
}

/** The instant at which the zone's clock reads the wall time (ms since the epoch, read as UTC fields). */
function instantOfWall(zone: SubscriberZone, wall: number): number {
  // The offset at the guess may differ from the one at the answer (a change of daylight saving time between
  // them): a second pass settles it; a wall time that does not exist (skipped forward) lands just after.
  let instant = wall - zoneOffsetMinutes(zone, wall) * 60_000;
  instant = wall - zoneOffsetMinutes(zone, instant) * 60_000;
  return instant;
}

/** The first instant at or after `from` at which the zone's clock shows `localTime` ("HH:MM"). */
export function nextLocalTime(zone: SubscriberZone, localTime: string, from: number): number {
  const [hours, minutes] = localTime.split(':').map(Number) as [number, number];
  const localNow = new Date(from + zoneOffsetMinutes(zone, from) * 60_000);
  for (let days = 0; days <= 2; days += 1) {
    const wall = Date.UTC(localNow.getUTCFullYear(), localNow.getUTCMonth(), localNow.getUTCDate() + days, hours, minutes);
    const instant = instantOfWall(zone, wall);
    if (instant >= from) return instant;
  }
  throw new Error(`no ${localTime} after ${new Date(from).toISOString()}`);
}
