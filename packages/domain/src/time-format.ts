// The contract's time formats: UTC with milliseconds, microseconds for the inbound list's
// inbound_date, and calendar dates.

/** @example isoMillis(new Date(0)) === '1970-01-01T00:00:00.000Z' */
export function isoMillis(date: Date): string {
  return date.toISOString();
}

/** Microsecond form; the stored precision is milliseconds, so the last three digits are 0. */
export function isoMicros(date: Date): string {
  return date.toISOString().replace('Z', '000Z');
}

/** @example isoDate(new Date('2026-01-31T23:00:00Z')) === '2026-01-31' */
export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}
