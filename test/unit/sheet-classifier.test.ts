import fs from 'node:fs';
import path from 'node:path';
import {
  classifyDays,
  type GroupDayRules,
  localDater,
  roundedWorkedRecordOf,
  sheetClassifier,
  type StoredRecordTimes,
  totalsOf,
} from '../../src/pay-rules/classify';
import type { OvertimeRules, Weekday } from '../../src/pay-rules/settings';
import { wallClockIn } from '../../src/time';

// sheetClassifier is what every reader of stored records runs (timesheets, lists, the export, the
// lock, events): the published vectors through it, and what its memory may and may not change.

interface Vector {
  name: string;
  rules: OvertimeRules;
  group_rules?: GroupDayRules;
  workweek_start: Weekday;
  range: { from: string; to: string };
  records: StoredRecordTimes[];
  expected: { open_records: number };
}

const { cases } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'overtime-vectors.json'), 'utf8')) as {
  cases: Vector[];
};

/** What the vectors' own test computes: roundedWorkedRecordOf and classifyDays over the closed records. */
function rulesAnswer(vector: Vector) {
  const closed = vector.records.flatMap((record) =>
    record.out_time_utc === null ? [] : [{ ...record, out_time_utc: record.out_time_utc }],
  );
  const rounding = vector.group_rules?.rounding ?? null;
  const worked = closed.map((record) => roundedWorkedRecordOf(record, rounding));
  return classifyDays(worked, vector.rules, vector.workweek_start, vector.range, vector.group_rules);
}

describe('sheetClassifier', () => {
  it.each(cases.map((vector) => [vector.name, vector] as const))('answers vector "%s" as the rules do', (_name, vector) => {
    const { days, openRecords } = sheetClassifier(vector.rules, vector.workweek_start, vector.range, vector.group_rules)(vector.records);

    expect(days).toEqual(rulesAnswer(vector));
    expect(openRecords).toBe(vector.expected.open_records);
  });

  it('answers each employee of a reading alike, whoever came first and whatever zone they are in', () => {
    const monday = cases.filter((vector) => vector.workweek_start === 'monday' && vector.range.from === '2024-06-03');
    const range = { from: '2024-06-03', to: '2024-06-16' };
    const rules = monday[0]!.rules;
    const shared = sheetClassifier(rules, 'monday', range);
    const alone = monday.map((vector) => sheetClassifier(rules, 'monday', range)(vector.records));

    expect(monday.length).toBeGreaterThan(3);
    expect(monday.map((vector) => shared(vector.records))).toEqual(alone);
    expect([...monday].reverse().map((vector) => shared(vector.records))).toEqual([...alone].reverse());
  });

  it('counts an open record only on a date of the range, by its own wall clock', () => {
    const classify = sheetClassifier(
      { daily_after_hours: 8, daily_double_after_hours: null, weekly_after_hours: null, seventh_day: false },
      'monday',
      {
        from: '2024-06-03',
        to: '2024-06-09',
      },
    );
    // 2024-06-02 23:30 UTC is already the 3rd in Berlin, and 2024-06-10 02:00 UTC still the 9th in Chicago.
    const open = (inTime: string, timezone: string): StoredRecordTimes => ({ in_time_utc: inTime, out_time_utc: null, timezone });

    expect(classify([open('2024-06-02 23:30:00', 'Europe/Berlin')]).openRecords).toBe(1);
    expect(classify([open('2024-06-02 23:30:00', 'UTC')]).openRecords).toBe(0);
    expect(classify([open('2024-06-10 02:00:00', 'America/Chicago')]).openRecords).toBe(1);
    expect(classify([open('2024-06-10 02:00:00', 'UTC')]).openRecords).toBe(0);
    expect(totalsOf(classify([open('2024-06-04 09:00:00', 'UTC')]).days).worked).toBe(0);
  });
});

describe('localDater', () => {
  it('dates every quarter hour of a year of changes as the wall clock reads it, in any order', () => {
    const zones = ['Europe/Berlin', 'America/Los_Angeles', 'Australia/Sydney', 'Asia/Kolkata', 'UTC'];
    const instants = Array.from({ length: 366 * 96 }, (_, index) => Date.UTC(2024, 0, 1) / 1000 + index * 900);
    const forwards = localDater();
    const backwards = localDater();

    for (const timeZone of zones) {
      const expected = instants.map((seconds) => wallClockIn(timeZone, new Date(seconds * 1000)).slice(0, 10));
      expect(instants.map((seconds) => forwards(timeZone, seconds))).toEqual(expected);
      expect([...instants].reverse().map((seconds) => backwards(timeZone, seconds))).toEqual([...expected].reverse());
    }
  });
});
