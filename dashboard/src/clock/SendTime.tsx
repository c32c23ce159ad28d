import { formatInstant, formatUtc } from './format.ts';
import { useDisplayZone } from './zone.ts';

/**
 * When a campaign goes, as the compose confirmation states it: now; at a moment, on the owner's clock (with its
 * zone) and in UTC; or at a time of day on each subscriber's own clock.
 */
export function SendTime({ sendAt, localTime }: { sendAt?: string; localTime?: string }) {
  const zone = useDisplayZone();
  const at = sendAt && !Number.isNaN(Date.parse(sendAt)) ? sendAt : undefined;
  const moment = at && (
    <>
      <time dateTime={new Date(at).toISOString()} title={formatUtc(at)} data-send-at={new Date(at).toISOString()}>
        {formatInstant(at, zone)}
      </time>{' '}
      on your clock ({zone}), {formatUtc(at)}
    </>
  );
  if (localTime) {
    return (
      <p className="send-time" data-local-time={localTime}>
        It goes at <strong>{localTime}</strong> on each subscriber's own clock, zone by zone{moment ? <>, from {moment}</> : null}.
      </p>
    );
  }
  if (moment) return <p className="send-time">It goes at {moment}.</p>;
  return <p className="send-time">It goes now.</p>;
}

/** The time a preview's header shows: "now" only for a notification that goes now. */
export function previewWhen(sendAt: string | undefined, localTime: string | undefined, zone: string): string {
  if (localTime) return `${localTime} (their clock)`;
  if (sendAt && !Number.isNaN(Date.parse(sendAt))) return formatInstant(sendAt, zone).slice(11);
  return 'now';
}
