import { isCalendarDate, isTimeZone, todayIn, wallClockIn } from '../../src/time';

describe('calendar dates', () => {
  it.each(['2024-02-29', '2023-12-31', '0001-01-01'])('accepts %s', (value) => {
    expect(isCalendarDate(value)).toBe(true);
  });

  it.each(['2023-02-29', '2023-02-30', '2023-13-01', '2023-00-10', '2023-1-1', '0000-00-00', '2023-01-01T00:00', ''])(
    'rejects %s',
    (value) => {
      expect(isCalendarDate(value)).toBe(false);
    },
  );
});

describe('time zones', () => {
  it.each(['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5'])('accepts %s', (zone) => {
    expect(isTimeZone(zone)).toBe(true);
  });

  it.each(['Mars/Olympus', '+02:00', 'Europe/', '', 'Europe/Berlin; drop table'])('rejects %j', (zone) => {
    expect(isTimeZone(zone)).toBe(false);
  });

  it('gives wall-clock time and today in a zone, whatever the server zone', () => {
    const instant = new Date('2026-03-29T00:30:00Z');

    expect(wallClockIn('Europe/Berlin', instant)).toBe('2026-03-29 01:30:00');
    expect(wallClockIn('America/Los_Angeles', instant)).toBe('2026-03-28 17:30:00');
    expect(todayIn('Asia/Tokyo', instant)).toBe('2026-03-29');
    expect(todayIn('America/Los_Angeles', instant)).toBe('2026-03-28');
  });
});
