import fc from 'fast-check';
import { classifyDays, type DayHours, totalsOf, type WorkedRecord } from '../../src/pay-rules/classify';
import { addDays, workweekStartOf } from '../../src/pay-rules/periods';
import { type OvertimeRules, thresholdSeconds, type Weekday, WEEKDAYS } from '../../src/pay-rules/settings';

// Properties any classification must keep, over random rules and records (the exact numbers are
// checked by the published vectors).
const FIRST = '2024-02-19';
const SPAN = 42;

const hours = fc.option(
  fc.integer({ min: 1, max: 6000 }).map((hundredths) => hundredths / 100),
  { nil: null },
);
const rulesArbitrary: fc.Arbitrary<OvertimeRules> = fc
  .record({ daily_after_hours: hours, daily_double_after_hours: hours, weekly_after_hours: hours, seventh_day: fc.boolean() })
  .filter((r) => r.daily_after_hours === null || r.daily_double_after_hours === null || r.daily_double_after_hours >= r.daily_after_hours);
const recordsArbitrary: fc.Arbitrary<WorkedRecord[]> = fc.array(
  fc.record({
    date: fc.integer({ min: 0, max: SPAN - 1 }).map((day) => addDays(FIRST, day)),
    seconds: fc.integer({ min: 0, max: 16 * 3600 }),
  }),
  { maxLength: 60 },
);
const weekdayArbitrary = fc.constantFrom<Weekday>(...WEEKDAYS);
const rangeArbitrary = fc
  .tuple(fc.integer({ min: 7, max: SPAN - 1 }), fc.integer({ min: 0, max: SPAN - 1 }))
  .map(([a, b]) => ({ from: addDays(FIRST, Math.min(a, b + 7)), to: addDays(FIRST, Math.max(a, b)) }))
  .filter((range) => range.from <= range.to);

const view = (days: DayHours[]) =>
  days.map((day) => `${day.date} ${day.worked} ${day.regular} ${day.overtime} ${day.double_time} ${day.records}`);

describe('classifyDays, for any rules and records', () => {
  it('splits each date exactly into regular, overtime and double time', () => {
    fc.assert(
      fc.property(rulesArbitrary, recordsArbitrary, weekdayArbitrary, rangeArbitrary, (rules, records, start, range) => {
        const days = classifyDays(records, rules, start, range);
        for (const day of days) {
          expect(day.regular + day.overtime + day.double_time).toBe(day.worked);
          expect(Math.min(day.regular, day.overtime, day.double_time)).toBeGreaterThanOrEqual(0);
          expect(day.worked).toBe(records.filter((record) => record.date === day.date).reduce((sum, record) => sum + record.seconds, 0));
          expect(day.records).toBe(records.filter((record) => record.date === day.date).length);
          if (rules.daily_after_hours !== null) expect(day.regular).toBeLessThanOrEqual(thresholdSeconds(rules.daily_after_hours));
        }
        const totals = totalsOf(days);
        expect(totals.regular + totals.overtime + totals.double_time).toBe(totals.worked);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps each workweek regular hours within the weekly threshold', () => {
    fc.assert(
      fc.property(rulesArbitrary, recordsArbitrary, weekdayArbitrary, rangeArbitrary, (rules, records, start, range) => {
        fc.pre(rules.weekly_after_hours !== null);
        const first = workweekStartOf(range.from, start);
        const days = classifyDays(records, rules, start, { from: first, to: range.to });
        const byWeek = new Map<string, number>();
        for (const day of days)
          byWeek.set(workweekStartOf(day.date, start), (byWeek.get(workweekStartOf(day.date, start)) ?? 0) + day.regular);
        for (const regular of byWeek.values()) expect(regular).toBeLessThanOrEqual(thresholdSeconds(rules.weekly_after_hours!));
      }),
      { numRuns: 300 },
    );
  });

  it('gives a date the same hours whatever the order of records and wherever the range starts or ends', () => {
    fc.assert(
      fc.property(rulesArbitrary, recordsArbitrary, weekdayArbitrary, rangeArbitrary, (rules, records, start, range) => {
        const whole = classifyDays(records, rules, start, { from: FIRST, to: addDays(FIRST, SPAN - 1) });
        const part = classifyDays([...records].reverse(), rules, start, range);

        expect(view(part)).toEqual(view(whole.filter((day) => day.date >= range.from && day.date <= range.to)));
      }),
      { numRuns: 300 },
    );
  });

  it('never lowers pay when a record grows', () => {
    fc.assert(
      fc.property(
        rulesArbitrary,
        recordsArbitrary,
        fc.nat(),
        fc.integer({ min: 1, max: 4 * 3600 }),
        weekdayArbitrary,
        (rules, records, pick, extra, start) => {
          fc.pre(records.length > 0);
          const grown = records.map((record, index) =>
            index === pick % records.length ? { ...record, seconds: record.seconds + extra } : record,
          );
          const range = { from: FIRST, to: addDays(FIRST, SPAN - 1) };
          const before = totalsOf(classifyDays(records, rules, start, range));
          const after = totalsOf(classifyDays(grown, rules, start, range));

          expect(after.worked).toBe(before.worked + extra);
          // Paid as 1, 1.5 and 2: more worked time never pays less.
          expect(2 * after.regular + 3 * after.overtime + 4 * after.double_time).toBeGreaterThanOrEqual(
            2 * before.regular + 3 * before.overtime + 4 * before.double_time,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
