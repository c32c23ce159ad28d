import { formatInstant, formatUtc } from './format.ts';
import { useDisplayZone } from './zone.ts';

/**
 * An instant on the owner's clock, with UTC on hover: `<time datetime="..." title="2026-11-26 18:30 UTC">`.
 * Every time the dashboard shows goes through this (or formatInstant for text that is not markup).
 */
export function Time({ value, fallback = '—' }: { value: string | null | undefined; fallback?: string }) {
  const zone = useDisplayZone();
  if (!value || Number.isNaN(Date.parse(value))) return <>{fallback}</>;
  return (
    <time dateTime={new Date(value).toISOString()} title={formatUtc(value)}>
      {formatInstant(value, zone)}
    </time>
  );
}
