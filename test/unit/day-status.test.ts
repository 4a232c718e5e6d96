import { employeeDays } from '../../src/day-rules/day-status';
import { matchRecords } from '../../src/day-rules/matching';
import type { DayHoliday, DayLeave, DayRecord, DayShift, EmployeeDaysInput } from '../../src/day-rules/types';
import { instantOfLocal } from '../../src/shifts/times';

// The day status (CONTRACT 6.7, docs/schedules.md): precedence, matching, daylight saving and the
// issue's worked cases, on the pure function every reader goes through.

const at = (zone: string, local: string) => instantOfLocal(zone, local).getTime();

let nextId = 1;
function shift(zone: string, startLocal: string, endLocal: string, rules: Partial<DayShift> = {}): DayShift {
  return {
    id: nextId++,
    date: startLocal.slice(0, 10),
    start: at(zone, startLocal),
    end: at(zone, endLocal),
    unpaid_break_minutes: 0,
    late_grace_minutes: 0,
    early_exit_grace_minutes: 0,
    check_in_window_minutes: 60,
    check_out_window_minutes: 60,
    half_day_below_hours: null,
    absent_below_hours: null,
    ...rules,
  };
}
function record(zone: string, startLocal: string, endLocal: string | null): DayRecord {
  return {
    id: nextId++,
    start: at(zone, startLocal),
    end: endLocal === null ? null : at(zone, endLocal),
    localDate: startLocal.slice(0, 10),
  };
}

function days(
  input: Partial<EmployeeDaysInput> & { from: string; to?: string },
  extras: { leave?: Record<string, DayLeave>; holiday?: Record<string, DayHoliday> } = {},
) {
  return employeeDays({
    to: input.from,
    now: Date.parse('2030-01-01T00:00:00Z'),
    joinedDate: null,
    terminationDate: null,
    shifts: [],
    records: [],
    leaveOn: (date) => extras.leave?.[date] ?? null,
    holidayOn: (date) => extras.holiday?.[date] ?? null,
    ...input,
  });
}

const UTC = 'UTC';
const BERLIN = 'Europe/Berlin';

describe('day status precedence', () => {
  const day = '2026-06-10';
  const work = () => shift(UTC, `${day}T08:00`, `${day}T16:00`, { half_day_below_hours: 6, absent_below_hours: 2 });

  it('answers on_leave for approved full-day leave, even with a shift, and flags work on it', () => {
    const planned = work();
    const worked = record(UTC, `${day}T08:00`, `${day}T12:00`);
    const [row] = days(
      { from: day, shifts: [planned], records: [worked] },
      { leave: { [day]: { id: 7, portion: 'full', status: 'approved' } } },
    );
    expect(row).toMatchObject({
      status: 'on_leave',
      leave: 7,
      flags: ['early_exit', 'worked_on_leave'],
      attendance: [worked.id],
      worked_hours: 4,
    });
  });

  it('does not answer on_leave for half-day or pending leave; pending leave is flagged', () => {
    const planned = work();
    const worked = record(UTC, `${day}T08:00`, `${day}T16:00`);
    const half = days(
      { from: day, shifts: [planned], records: [worked] },
      { leave: { [day]: { id: 8, portion: 'am', status: 'approved' } } },
    );
    expect(half[0]).toMatchObject({ status: 'present', leave: 8, flags: [] });
    const pending = days({ from: day, shifts: [planned] }, { leave: { [day]: { id: 9, portion: 'full', status: 'pending' } } });
    expect(pending[0]).toMatchObject({ status: 'absent', leave: 9, flags: ['leave_pending'] });
  });

  it('counts late from the midday with approved am leave, early exit up to it with pm leave', () => {
    const planned = shift(UTC, `${day}T08:00`, `${day}T16:00`, { late_grace_minutes: 5, early_exit_grace_minutes: 5 });
    const am = { [day]: { id: 10, portion: 'am' as const, status: 'approved' as const } };
    const onTime = record(UTC, `${day}T12:04`, `${day}T16:00`);
    expect(days({ from: day, shifts: [planned], records: [onTime] }, { leave: am })[0]).toMatchObject({
      status: 'present',
      late_minutes: 0,
      flags: [],
    });
    const late = record(UTC, `${day}T12:30`, `${day}T16:00`);
    expect(days({ from: day, shifts: [planned], records: [late] }, { leave: am })[0]).toMatchObject({
      status: 'present',
      late_minutes: 30,
      flags: ['late'],
    });
    const pm = { [day]: { id: 11, portion: 'pm' as const, status: 'approved' as const } };
    const morning = record(UTC, `${day}T08:00`, `${day}T12:00`);
    expect(days({ from: day, shifts: [planned], records: [morning] }, { leave: pm })[0]).toMatchObject({
      early_exit_minutes: 0,
      flags: [],
    });
    const leftEarly = record(UTC, `${day}T08:00`, `${day}T11:00`);
    expect(days({ from: day, shifts: [planned], records: [leftEarly] }, { leave: pm })[0]).toMatchObject({
      early_exit_minutes: 60,
      flags: ['early_exit'],
    });
    // A pending am leave moves nothing: the whole shift is expected.
    const pendingAm = { [day]: { id: 12, portion: 'am' as const, status: 'pending' as const } };
    expect(days({ from: day, shifts: [planned], records: [late] }, { leave: pendingAm })[0]).toMatchObject({
      late_minutes: 270,
      flags: ['late', 'leave_pending'],
    });
  });

  it('answers holiday without a published shift; with one the shift decides and work is flagged', () => {
    const holiday = { [day]: { id: 3, portion: 'full' as const } };
    expect(days({ from: day }, { holiday })[0]).toMatchObject({ status: 'holiday', holiday: 3, flags: [] });
    const worked = record(UTC, `${day}T09:00`, `${day}T11:00`);
    expect(days({ from: day, records: [worked] }, { holiday })[0]).toMatchObject({ status: 'holiday', flags: ['holiday_worked'] });
    const planned = work();
    const onShift = record(UTC, `${day}T08:00`, `${day}T16:00`);
    expect(days({ from: day, shifts: [planned], records: [onShift] }, { holiday })[0]).toMatchObject({
      status: 'present',
      flags: ['holiday_worked'],
    });
  });

  it('answers day_off with nothing, unscheduled for records without a shift, incomplete for an open one', () => {
    expect(days({ from: day })[0]).toMatchObject({ status: 'day_off', shifts: [], attendance: [], planned_hours: 0, worked_hours: 0 });
    const worked = record(UTC, `${day}T09:00`, `${day}T11:30`);
    expect(days({ from: day, records: [worked] })[0]).toMatchObject({ status: 'unscheduled', worked_hours: 2.5, attendance: [worked.id] });
    const open = record(UTC, `${day}T09:00`, null);
    expect(days({ from: day, records: [open] })[0]).toMatchObject({ status: 'incomplete', worked_hours: 0 });
    expect(days({ from: day, shifts: [work()], records: [record(UTC, `${day}T08:00`, null)] })[0]).toMatchObject({ status: 'incomplete' });
  });

  it('answers pending until the last check-out window closes without a record, absent from then on', () => {
    const planned = work();
    const before = Date.parse(`${day}T16:59:59Z`);
    expect(days({ from: day, shifts: [planned], now: before })[0]).toMatchObject({ status: 'pending', planned_hours: 8 });
    expect(days({ from: day, shifts: [planned], now: before + 1000 })[0]).toMatchObject({ status: 'absent', worked_hours: 0 });
  });

  it('answers half_day and absent by the thresholds on worked hours, present at them', () => {
    const planned = work();
    const status = (endLocal: string) => days({ from: day, shifts: [planned], records: [record(UTC, `${day}T08:00`, endLocal)] })[0]!;
    expect(status(`${day}T09:59`)).toMatchObject({ status: 'absent', flags: ['early_exit'] });
    expect(status(`${day}T10:00`)).toMatchObject({ status: 'half_day', worked_hours: 2, early_exit_minutes: 360 });
    expect(status(`${day}T14:00`)).toMatchObject({ status: 'present', worked_hours: 6 });
    expect(status(`${day}T16:00`)).toMatchObject({ status: 'present', flags: [], early_exit_minutes: 0 });
  });

  it('has no status before joined_date or after termination_date', () => {
    const rows = days({ from: '2026-06-01', to: '2026-06-10', joinedDate: '2026-06-03', terminationDate: '2026-06-08' });
    expect(rows.map((row) => row.date)).toEqual(['2026-06-03', '2026-06-04', '2026-06-05', '2026-06-06', '2026-06-07', '2026-06-08']);
  });
});

describe('late and early exit', () => {
  it('is late only strictly after start + grace, and counts late minutes from the start', () => {
    const planned = shift(UTC, '2026-06-11T08:00', '2026-06-11T16:00', { late_grace_minutes: 5, early_exit_grace_minutes: 5 });
    const row = (inLocal: string, outLocal: string) =>
      days({ from: '2026-06-11', shifts: [planned], records: [record(UTC, inLocal, outLocal)] })[0]!;
    expect(row('2026-06-11T08:05', '2026-06-11T16:00')).toMatchObject({ flags: [], late_minutes: 0 });
    expect(row('2026-06-11T08:06', '2026-06-11T16:00')).toMatchObject({ flags: ['late'], late_minutes: 6 });
    expect(row('2026-06-11T08:00', '2026-06-11T15:55')).toMatchObject({ flags: [], early_exit_minutes: 0 });
    expect(row('2026-06-11T08:00', '2026-06-11T15:54')).toMatchObject({ flags: ['early_exit'], early_exit_minutes: 6 });
  });

  it('gives the same verdict to the same 08:00 shift on both sides of a daylight-saving change', () => {
    for (const date of ['2026-03-28', '2026-03-30', '2026-10-24', '2026-10-26']) {
      const planned = shift(BERLIN, `${date}T08:00`, `${date}T16:00`, { late_grace_minutes: 5 });
      const onTime = days({ from: date, shifts: [planned], records: [record(BERLIN, `${date}T08:05`, `${date}T16:00`)] })[0];
      const late = days({ from: date, shifts: [planned], records: [record(BERLIN, `${date}T08:06`, `${date}T16:00`)] })[0];
      expect({ date, onTime: onTime!.flags, late: [late!.flags, late!.late_minutes] }).toEqual({ date, onTime: [], late: [['late'], 6] });
    }
  });
});

describe('the worked cases of the issue', () => {
  it('moves the 02:30 shift of the spring-forward night to 03:30 and lasts 7 hours', () => {
    const planned = shift(BERLIN, '2026-03-29T02:30', '2026-03-29T10:30');
    expect(new Date(planned.start).toISOString()).toBe('2026-03-29T01:30:00.000Z');
    const worked = record(BERLIN, '2026-03-29T03:30', '2026-03-29T10:30');
    expect(days({ from: '2026-03-29', shifts: [planned], records: [worked] })[0]).toMatchObject({
      status: 'present',
      planned_hours: 7,
      worked_hours: 7,
      flags: [],
    });
  });

  it('counts 22:00 to 06:00 on the fall-back night as 9 hours, on the date it began', () => {
    const planned = shift(BERLIN, '2026-10-24T22:00', '2026-10-25T06:00');
    const worked = record(BERLIN, '2026-10-24T21:58', '2026-10-25T06:00');
    const rows = days({ from: '2026-10-24', to: '2026-10-25', shifts: [planned], records: [worked] });
    expect(rows[0]).toMatchObject({ date: '2026-10-24', status: 'present', planned_hours: 9, worked_hours: 9.03, attendance: [worked.id] });
    expect(rows[1]).toMatchObject({ date: '2026-10-25', status: 'day_off', attendance: [] });
  });

  it("keeps a night shift and the next day's 14:00 shift apart", () => {
    const night = shift(UTC, '2026-05-04T22:00', '2026-05-05T06:00');
    const afternoon = shift(UTC, '2026-05-05T14:00', '2026-05-05T22:00');
    const nightWork = record(UTC, '2026-05-04T21:50', '2026-05-05T06:10');
    const dayWork = record(UTC, '2026-05-05T13:55', '2026-05-05T22:00');
    const rows = days({ from: '2026-05-04', to: '2026-05-05', shifts: [night, afternoon], records: [nightWork, dayWork] });
    expect(rows.map((row) => [row.date, row.status, row.shifts, row.attendance, row.worked_hours])).toEqual([
      ['2026-05-04', 'present', [night.id], [nightWork.id], 8.33],
      ['2026-05-05', 'present', [afternoon.id], [dayWork.id], 8.08],
    ]);
  });

  it('reads a split shift punched twice (one record) and four times (two records)', () => {
    const morning = shift(UTC, '2026-05-06T08:00', '2026-05-06T12:00');
    const afternoon = shift(UTC, '2026-05-06T13:00', '2026-05-06T17:00');
    const through = record(UTC, '2026-05-06T08:00', '2026-05-06T17:00');
    expect(days({ from: '2026-05-06', shifts: [morning, afternoon], records: [through] })[0]).toMatchObject({
      status: 'present',
      planned_hours: 8,
      worked_hours: 9,
      shifts: [morning.id, afternoon.id],
      attendance: [through.id],
      flags: [],
    });
    const first = record(UTC, '2026-05-06T08:00', '2026-05-06T12:00');
    const second = record(UTC, '2026-05-06T13:02', '2026-05-06T17:00');
    expect(days({ from: '2026-05-06', shifts: [morning, afternoon], records: [first, second] })[0]).toMatchObject({
      status: 'present',
      worked_hours: 7.97,
      attendance: [first.id, second.id],
      flags: ['late'],
      late_minutes: 2,
    });
  });

  it('keeps a night shift east of UTC that crosses UTC midnight on its local business date', () => {
    const zone = 'Europe/Helsinki';
    const night = shift(zone, '2026-05-06T22:00', '2026-05-07T06:00');
    expect([new Date(night.start).toISOString(), new Date(night.end).toISOString()]).toEqual([
      '2026-05-06T19:00:00.000Z',
      '2026-05-07T03:00:00.000Z',
    ]);
    const worked = record(zone, '2026-05-06T21:58', '2026-05-07T06:03');
    const rows = days({ from: '2026-05-06', to: '2026-05-07', shifts: [night], records: [worked] });
    expect(rows.map((row) => [row.date, row.status, row.attendance, row.flags])).toEqual([
      ['2026-05-06', 'present', [worked.id], []],
      ['2026-05-07', 'day_off', [], []],
    ]);
    // Tokyo's 07:00 starts on the previous UTC date: the local date still decides.
    const early = shift('Asia/Tokyo', '2026-05-08T07:00', '2026-05-08T15:00');
    const tokyo = record('Asia/Tokyo', '2026-05-08T06:58', '2026-05-08T15:00');
    expect(new Date(early.start).toISOString()).toBe('2026-05-07T22:00:00.000Z');
    expect(days({ from: '2026-05-08', shifts: [early], records: [tokyo] })[0]).toMatchObject({ status: 'present', attendance: [tokyo.id] });
  });
});

describe('matching', () => {
  it('gives a record in two windows to the shift whose start is nearest, the earlier on a tie', () => {
    const a = shift(UTC, '2026-05-09T08:00', '2026-05-09T12:00');
    const b = shift(UTC, '2026-05-09T13:00', '2026-05-09T17:00');
    const late = record(UTC, '2026-05-09T12:40', '2026-05-09T17:00');
    const middle = record(UTC, '2026-05-09T10:30', '2026-05-09T11:00');
    const outside = record(UTC, '2026-05-09T18:01', '2026-05-09T19:00');
    expect(matchRecords([a, b], [late, middle, outside])).toEqual(
      new Map([
        [late.id, b.id],
        [middle.id, a.id],
      ]),
    );
    const c = shift(UTC, '2026-05-10T08:00', '2026-05-10T09:00');
    const d = shift(UTC, '2026-05-10T10:00', '2026-05-10T11:00');
    const tie = record(UTC, '2026-05-10T09:00', '2026-05-10T09:30');
    expect(matchRecords([d, c], [tie]).get(tie.id)).toBe(c.id);
  });
});
