import { adjustmentRows, formatUnits, longRows, wideAdjustment } from '../../src/export-profiles/render';

// The adjustment of a re-locked period (docs/pay-periods.md, "Adjustments after a re-lock"): the
// rows of the earlier lock's file plus the adjustment's are the rows of the current lock's file.

const HOUR = 3600;
const day = (date: string, regular: number, overtime = 0, doubleTime = 0) => ({ date, regular, overtime, double_time: doubleTime });
const DECIMAL = { hours_format: 'decimal', decimals: 2 } as const;

describe('formatUnits of a negative number of units', () => {
  it('puts the sign before the hours, in every format', () => {
    expect(formatUnits(-600, DECIMAL)).toBe('-6.00');
    expect(formatUnits(-650, DECIMAL)).toBe('-6.50');
    expect(formatUnits(-5, DECIMAL)).toBe('-0.05');
    expect(formatUnits(-90, { hours_format: 'hh:mm', decimals: 2 })).toBe('-1:30');
    expect(formatUnits(-3, { hours_format: 'decimal', decimals: 0 })).toBe('-3');
    expect(formatUnits(600, DECIMAL)).toBe('6.00');
  });
});

describe('adjustmentRows', () => {
  it('answers each date and code whose units changed, signed, in date and REG/OT/DT order', () => {
    const before = [day('2026-11-02', 8 * HOUR, 2 * HOUR), day('2026-11-03', 8 * HOUR)];
    const after = [day('2026-11-02', 8 * HOUR), day('2026-11-03', 8 * HOUR, 0, HOUR), day('2026-11-04', 4 * HOUR)];
    expect(adjustmentRows(before, after, DECIMAL)).toEqual([
      { date: '2026-11-02', code: 'OT', units: -200 },
      { date: '2026-11-03', code: 'DT', units: 100 },
      { date: '2026-11-04', code: 'REG', units: 400 },
    ]);
  });

  it('answers nothing for equal days, and adds up: the earlier rows plus the adjustment are the current rows', () => {
    const before = [day('2026-11-02', 1200), day('2026-11-03', 1200), day('2026-11-04', 1200)];
    const after = [day('2026-11-02', 1200), day('2026-11-03', 2400)];
    expect(adjustmentRows(before, before, DECIMAL)).toEqual([]);
    const sum = new Map<string, number>();
    for (const row of [...longRows(before, { ...DECIMAL, include_zero: false }), ...adjustmentRows(before, after, DECIMAL)])
      sum.set(`${row.date} ${row.code}`, (sum.get(`${row.date} ${row.code}`) ?? 0) + row.units);
    const expected = new Map(longRows(after, { ...DECIMAL, include_zero: false }).map((row) => [`${row.date} ${row.code}`, row.units]));
    expect(new Map([...sum].filter(([, units]) => units !== 0))).toEqual(expected);
  });
});

describe('wideAdjustment', () => {
  it("answers each code's change of the period's units, or undefined when none changed", () => {
    const before = [day('2026-11-02', 8 * HOUR), day('2026-11-03', 8 * HOUR)];
    expect(wideAdjustment(before, [day('2026-11-02', 8 * HOUR), day('2026-11-05', 8 * HOUR)], DECIMAL)).toBeUndefined();
    expect(wideAdjustment(before, [day('2026-11-02', 8 * HOUR, HOUR)], DECIMAL)).toEqual({ REG: -800, OT: 100, DT: 0 });
    expect(wideAdjustment([], [day('2026-11-02', HOUR)], DECIMAL)).toEqual({ REG: 100, OT: 0, DT: 0 });
  });
});
