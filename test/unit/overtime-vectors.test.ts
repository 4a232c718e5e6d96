import { classifyDays, formatHours, roundedWorkedRecordOf, totalsOf } from '../../src/pay-rules/classify';
import { publishedVectors, type Vector } from '../helpers/overtime-vectors';

// The published vectors (docs/overtime-vectors.md) against the rules of src/pay-rules.
const file = publishedVectors();

/** What the module answers for a vector, in the vectors' own shape. */
function classify(vector: Vector): Vector['expected'] & { zeroDays: string[]; dates: string[] } {
  const closed = vector.records.flatMap((record) =>
    record.out_time_utc === null ? [] : [{ ...record, out_time_utc: record.out_time_utc }],
  );
  const groupRules = vector.group_rules;
  const worked = closed.map((record) => roundedWorkedRecordOf(record, groupRules?.rounding ?? null));
  const days = classifyDays(worked, vector.rules, vector.workweek_start, vector.range, groupRules);
  const totals = totalsOf(days);
  return {
    dates: days.map((day) => day.date),
    days: days
      .filter((day) => day.records > 0)
      .map((day) => ({
        date: day.date,
        records: day.records,
        worked_hours: formatHours(day.worked),
        regular_hours: formatHours(day.regular),
        overtime_hours: formatHours(day.overtime),
        double_time_hours: formatHours(day.double_time),
        ...(groupRules ? { break_deducted_hours: formatHours(day.break_deducted) } : {}),
      })),
    zeroDays: days
      .filter((day) => day.records === 0 && day.worked + day.regular + day.overtime + day.double_time !== 0)
      .map((day) => day.date),
    totals: {
      worked_hours: formatHours(totals.worked),
      regular_hours: formatHours(totals.regular),
      overtime_hours: formatHours(totals.overtime),
      double_time_hours: formatHours(totals.double_time),
    },
    open_records: vector.records.length - closed.length,
  };
}

describe('the published overtime vectors (docs/overtime-vectors.json)', () => {
  it('hold at least 200 cases with distinct names, covering every family', () => {
    expect(file.version).toBe(1);
    expect(file.cases.length).toBeGreaterThanOrEqual(200);
    expect(new Set(file.cases.map((vector) => vector.name)).size).toBe(file.cases.length);
    const records = file.cases.flatMap((vector) => vector.records);
    expect(records.some((record) => record.out_time_utc === null)).toBe(true);
    expect(records.some((record) => record.out_time_utc === record.in_time_utc)).toBe(true);
    expect(new Set(file.cases.map((vector) => vector.workweek_start)).size).toBe(7);
    expect(file.cases.some((vector) => vector.rules.seventh_day)).toBe(true);
    expect(file.cases.some((vector) => vector.records.some((record) => record.in_time_utc.slice(0, 10) < vector.range.from))).toBe(true);
    const withGroupRules = file.cases.flatMap((vector) => (vector.group_rules ? [vector.group_rules] : []));
    expect(withGroupRules.some((rules) => rules.exempt)).toBe(true);
    expect(withGroupRules.some((rules) => rules.meal_break !== null)).toBe(true);
    expect(withGroupRules.some((rules) => rules.rounding !== null)).toBe(true);
    expect(withGroupRules.some((rules) => rules.meal_break !== null && rules.rounding !== null)).toBe(true);
  });

  it.each(file.cases.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
    const actual = classify(vector);

    expect(actual.dates[0]).toBe(vector.range.from);
    expect(actual.dates.at(-1)).toBe(vector.range.to);
    expect(actual.zeroDays).toEqual([]);
    expect({ days: actual.days, totals: actual.totals, open_records: actual.open_records }).toEqual(vector.expected);
  });
});
