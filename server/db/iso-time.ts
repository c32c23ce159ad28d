// A timestamptz column as the owner API and the command line show it: ISO 8601 in UTC. PGlite and node-postgres
// both read the column as a Date; a value carried through JSON (jsonb, a CTE's to_json) is its text.
export function isoTime(value: Date | string): string {
  return new Date(value).toISOString();
}

/** isoTime of a nullable column: null stays null. */
export function isoTimeOrNull(value: Date | string | null): string | null {
  return value === null ? null : isoTime(value);
}
