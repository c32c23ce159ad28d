// The owner's clock: the display time zone and the one formatter every screen uses.
export { browserZone, displayZone, isKnownZone, setDisplayZone, useDisplayZone, zoneIsChosen } from './zone.ts';
export { formatInstant, formatUtc, instantToWallClock, wallClockToInstant, zoneName } from './format.ts';
export { Time } from './Time.tsx';
export { ClockSetting } from './ClockSetting.tsx';
export { previewWhen, SendTime } from './SendTime.tsx';
