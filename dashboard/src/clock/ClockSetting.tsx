import { useMemo } from 'react';
import { browserZone, knownZones, setDisplayZone, useDisplayZone, zoneIsChosen } from './zone.ts';

/** The owner's pick of the zone times are shown in; "This browser's" follows the machine. */
export function ClockSetting() {
  const zone = useDisplayZone();
  const zones = useMemo(() => knownZones(), []);
  const chosen = zoneIsChosen();
  return (
    <label className="clock-setting">
      Times in{' '}
      <select
        aria-label="Display time zone"
        value={chosen ? zone : ''}
        onChange={(event) => setDisplayZone(event.target.value === '' ? null : event.target.value)}
      >
        <option value="">This browser's ({browserZone()})</option>
        {zones.map((entry) => (
          <option key={entry} value={entry}>
            {entry}
          </option>
        ))}
      </select>
    </label>
  );
}
