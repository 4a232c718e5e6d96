// Both dialects store instants as UTC text 'YYYY-MM-DD HH:MM:SS[.sss]' (MySQL DATETIME with the
// session in UTC and dateStrings; SQLite TEXT), so rows read the same on either and sort correctly.

/** 'YYYY-MM-DD HH:MM:SS.sss' in UTC, for DATETIME(3) columns. */
export function toSqlDateTime(instant: Date): string {
  return instant.toISOString().slice(0, 23).replace('T', ' ');
}

/** 'YYYY-MM-DD HH:MM:SS' in UTC, for second-precision DATETIME columns. */
export function toSqlDateTimeSeconds(instant: Date): string {
  return instant.toISOString().slice(0, 19).replace('T', ' ');
}

export function fromSqlDateTime(value: string): Date {
  return new Date(`${value.replace(' ', 'T')}Z`);
}

/** ISO-8601 with milliseconds and Z, as every `*_at` field is answered. */
export function sqlDateTimeToIso(value: string): string {
  // The usual 'YYYY-MM-DD HH:MM:SS.sss' needs no Date; other precisions go through one.
  if (value.length === 23) return `${value.slice(0, 10)}T${value.slice(11)}Z`;
  return fromSqlDateTime(value).toISOString();
}
