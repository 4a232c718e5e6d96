import {
  addDays,
  instantOfWallClock,
  isCalendarDate,
  isTimeZone,
  isWallClock,
  offsetMsAt,
  parseIsoInstant,
  todayIn,
  wallClockIn,
  weekdayOf,
} from '../../src/time';
import { TIME_ZONES } from '../../src/time-zones';

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

  it.each(['US/Eastern', 'Asia/Calcutta', 'Asia/Kolkata', 'Europe/Kiev', 'Europe/Kyiv', 'GMT', 'EST5EDT'])(
    'accepts the old name or link %s, as the tz database keeps it',
    (zone) => {
      expect(isTimeZone(zone)).toBe(true);
    },
  );

  it.each(['utc', 'europe/berlin', 'EUROPE/BERLIN', 'Factory', 'US/Pacific-New', 'Etc/Unknown'])(
    'rejects %s: another spelling than the listed one, or no zone of the list',
    (zone) => {
      expect(isTimeZone(zone)).toBe(false);
    },
  );

  it('lists only names this Node knows, each once, sorted, and every name Intl lists', () => {
    const known = (zone: string) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    };

    expect(TIME_ZONES.filter((zone) => !known(zone))).toEqual([]);
    expect([...new Set(TIME_ZONES)].sort()).toEqual(TIME_ZONES);
    expect(Intl.supportedValuesOf('timeZone').filter((zone) => !TIME_ZONES.includes(zone))).toEqual([]);
    expect(TIME_ZONES).toContain('UTC');
  });

  it('gives wall-clock time and today in a zone, whatever the server zone', () => {
    const instant = new Date('2026-03-29T00:30:00Z');

    expect(wallClockIn('Europe/Berlin', instant)).toBe('2026-03-29 01:30:00');
    expect(wallClockIn('America/Los_Angeles', instant)).toBe('2026-03-28 17:30:00');
    expect(todayIn('Asia/Tokyo', instant)).toBe('2026-03-29');
    expect(todayIn('America/Los_Angeles', instant)).toBe('2026-03-28');
  });
});

describe('wall-clock readings', () => {
  it.each(['2026-03-29 02:30:00', '2024-02-29 23:59:59', '2026-01-01 00:00:00'])('accepts %s', (value) => {
    expect(isWallClock(value)).toBe(true);
  });

  it.each(['2026-03-29 24:00:00', '2026-03-29 12:60:00', '2026-02-30 08:00:00', '2026-03-29T08:00:00', '2026-03-29 08:00', ''])(
    'rejects %j',
    (value) => {
      expect(isWallClock(value)).toBe(false);
    },
  );
});

describe('the instant of a wall-clock reading in a zone', () => {
  it.each([
    ['Europe/Berlin', '2026-03-28 22:00:00', '2026-03-28T21:00:00.000Z'],
    ['Europe/Berlin', '2026-03-29 06:00:00', '2026-03-29T04:00:00.000Z'],
    ['Asia/Kolkata', '2026-01-01 00:00:00', '2025-12-31T18:30:00.000Z'],
    ['America/New_York', '2026-07-04 09:15:30', '2026-07-04T13:15:30.000Z'],
    ['UTC', '2026-01-01 00:00:00', '2026-01-01T00:00:00.000Z'],
  ])('in %s, %s is %s', (zone, reading, instant) => {
    expect(instantOfWallClock(zone, reading)?.toISOString()).toBe(instant);
  });

  it.each([
    ['Europe/Berlin', '2026-03-29 02:30:00'],
    ['America/New_York', '2026-03-08 02:00:00'],
    // Samoa skipped the whole of 30 December 2011 when it crossed the date line.
    ['Pacific/Apia', '2011-12-30 12:00:00'],
  ])('is undefined for %s %s, skipped when the clocks jump forward', (zone, reading) => {
    expect(instantOfWallClock(zone, reading)).toBeUndefined();
  });

  it.each([
    ['Europe/Berlin', '2026-10-25 02:30:00', '2026-10-25T00:30:00.000Z'],
    ['America/New_York', '2026-11-01 01:30:00', '2026-11-01T05:30:00.000Z'],
    // A half-hour daylight-saving change.
    ['Australia/Lord_Howe', '2026-04-05 01:45:00', '2026-04-04T14:45:00.000Z'],
  ])('takes the earlier instant for %s %s, shown twice when the clocks fall back', (zone, reading, instant) => {
    expect(instantOfWallClock(zone, reading)?.toISOString()).toBe(instant);
  });

  it('round-trips every half hour of a year in a zone with daylight saving time', () => {
    for (let instant = Date.UTC(2026, 0, 1); instant < Date.UTC(2027, 0, 1); instant += 1_800_000) {
      const reading = wallClockIn('Europe/Berlin', new Date(instant));
      const back = instantOfWallClock('Europe/Berlin', reading);
      // Readings of the repeated hour come back as their earlier instant.
      expect([instant, instant - 3_600_000]).toContain(back?.getTime());
    }
  });

  it('gives offsets east of UTC as positive milliseconds', () => {
    expect(offsetMsAt('Asia/Kolkata', new Date('2026-06-01T00:00:00Z'))).toBe(5.5 * 3_600_000);
    expect(offsetMsAt('America/New_York', new Date('2026-01-15T12:00:00Z'))).toBe(-5 * 3_600_000);
  });
});

describe('ISO-8601 instants', () => {
  it.each([
    ['2026-03-29T01:30:00+01:00', '2026-03-29T00:30:00.000Z'],
    ['2026-03-29T01:30Z', '2026-03-29T01:30:00.000Z'],
    ['2026-03-29T01:30:00.999-0530', '2026-03-29T07:00:00.000Z'],
    ['2026-03-29T01:30:59.5Z', '2026-03-29T01:30:59.000Z'],
  ])('reads %s as %s (whole seconds)', (value, instant) => {
    expect(parseIsoInstant(value)?.toISOString()).toBe(instant);
  });

  it.each([
    '2026-03-29T01:30:00',
    '2026-03-29 01:30:00',
    '2026-02-30T01:30:00Z',
    '2026-03-29T25:00:00Z',
    '2026-03-29T01:30:00+19:00',
    '2026-03-29',
  ])('refuses %j', (value) => {
    expect(parseIsoInstant(value)).toBeUndefined();
  });
});

describe('calendar arithmetic', () => {
  it('adds days across month and year ends', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
  });

  it('names the weekday of a date', () => {
    expect(weekdayOf('2026-11-22')).toBe(0);
    expect(weekdayOf('2026-11-23')).toBe(1);
  });
});

describe('wallClockIn, fast paths', () => {
  it('writes UTC as the zone rules do, and a second asked twice the same as once', () => {
    const instants = [
      '1000-01-01T00:00:00Z',
      '1970-01-01T00:00:00.999Z',
      '2026-03-29T01:59:59.500Z',
      '2026-12-31T23:59:59Z',
      '9999-12-31T23:59:59Z',
    ];
    const viaIntl = (zone: string, iso: string) => {
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat('en-CA', {
          timeZone: zone,
          hourCycle: 'h23',
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
        })
          .formatToParts(new Date(iso))
          .map((part) => [part.type, part.value]),
      );
      return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
    };

    for (const iso of instants) expect(wallClockIn('UTC', new Date(iso))).toBe(viaIntl('UTC', iso));
    for (const iso of ['2026-03-29T00:59:59.100Z', '2026-03-29T00:59:59.900Z', '2026-03-29T01:00:00Z']) {
      expect(wallClockIn('Europe/Berlin', new Date(iso))).toBe(viaIntl('Europe/Berlin', iso));
      expect(wallClockIn('Europe/Berlin', new Date(iso))).toBe(viaIntl('Europe/Berlin', iso));
    }
  });
});
