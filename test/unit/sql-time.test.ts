import { fromSqlDateTime, sqlDateTimeToIso, toSqlDateTime, toSqlDateTimeSeconds } from '../../src/db/sql-time';

describe('SQL date-times', () => {
  const instant = new Date('2026-03-29T01:30:05.123Z');

  it('are written as UTC text with and without milliseconds', () => {
    expect(toSqlDateTime(instant)).toBe('2026-03-29 01:30:05.123');
    expect(toSqlDateTimeSeconds(instant)).toBe('2026-03-29 01:30:05');
  });

  it('are read back as the same instant', () => {
    expect(fromSqlDateTime('2026-03-29 01:30:05.123').getTime()).toBe(instant.getTime());
  });

  it.each([
    ['2026-03-29 01:30:05.123', '2026-03-29T01:30:05.123Z'],
    ['2026-03-29 01:30:05', '2026-03-29T01:30:05.000Z'],
    ['2026-03-29 01:30:05.1', '2026-03-29T01:30:05.100Z'],
  ])('answer %s as %s', (stored, iso) => {
    expect(sqlDateTimeToIso(stored)).toBe(iso);
  });
});
