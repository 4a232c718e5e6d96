import type { AttendanceEmployee } from '../../src/attendance/repository';
import type { StoredPunch } from '../../src/terminals/punch-log-repository';
import type { BatchAttendanceRow } from '../../src/terminals/record-repository';
import type { Direction } from '../../src/terminals/schemas';
import {
  derivationStart,
  type Outcome,
  planOutsideLockedPeriods,
  planTimeline,
  type Punch,
  type TimelineInput,
  type TimelinePlan,
} from '../../src/terminals/timeline-planner';

const employee: AttendanceEmployee = { id: 7, supervisor_id: null, timezone: 'UTC', display: 'Ada Lovelace', termination_date: null };
const MAX_SHIFT_MS = 16 * 3_600_000;
const stamp = { now: new Date('2026-11-20T12:00:00Z'), ip: '192.0.2.1' };

const sql = (iso: string) => iso.slice(0, 19).replace('T', ' ');
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);
const punch = (time: string, direction: Direction = 'auto'): Punch => ({ ms: Date.parse(`${time}Z`), direction });

/** A stored record in UTC; one the punch log made unless `manual`. */
function record(id: number, from: string, to: string | null, manual = false): BatchAttendanceRow {
  return {
    id,
    employee_id: employee.id,
    in_time_utc: sql(from),
    in_time_local: sql(from),
    out_time_utc: to === null ? null : sql(to),
    out_time_local: to === null ? null : sql(to),
    timezone: 'UTC',
    note: null,
    out_note: null,
    latitude: null,
    longitude: null,
    out_latitude: null,
    out_longitude: null,
    in_ip: null,
    out_ip: null,
    missed_punch_out: false,
    created_at: '2026-11-01 00:00:00.000',
    updated_at: '2026-11-01 00:00:00.000',
    derived_from_log: !manual,
  };
}

/** An entry of the log, as a derivation reads it. */
function logged(id: number, time: string, direction: Direction, outcome: Pick<StoredPunch, 'result'> & Partial<StoredPunch>): StoredPunch {
  return { id, log_id: `L${id}`, time_utc: sql(time), direction, action: null, attendance_id: null, code: null, ...outcome };
}

function input(punches: Punch[], options: Partial<TimelineInput> = {}): TimelineInput {
  return { employee, records: [], punches, latestLogged: undefined, logged: [], maxShiftMs: MAX_SHIFT_MS, ...options };
}

/** An outcome in a word or two: 'opened', 'closed', 'duplicate repeated_punch', 'rejected overlap'. */
function said(outcome: Outcome | undefined): string {
  if (!outcome) return 'none';
  if (outcome.result === 'created') return outcome.action;
  if (outcome.result === 'rejected') return `rejected ${outcome.code}`;
  return outcome.repeated ? `duplicate ${outcome.repeated.code}` : 'duplicate';
}

/** The plan's records as [in, out, id] (id undefined for a new one). */
const records = (plan: TimelinePlan) => plan.slots.map((slot) => [iso(slot.inMs), slot.outMs === null ? null : iso(slot.outMs), slot.id]);

describe('planTimeline', () => {
  it('opens at the in and closes at the out, whatever order they are sent in, one object per punch', () => {
    const out = punch('2026-11-02T16:00:00', 'out');
    const into = punch('2026-11-02T08:00:00', 'in');

    const plan = planTimeline(input([out, into]));

    expect([said(out.outcome), said(into.outcome)]).toEqual(['closed', 'opened']);
    expect(records(plan)).toEqual([['2026-11-02T08:00:00', '2026-11-02T16:00:00', undefined]]);
    const slot = plan.slots[0];
    expect(slot?.opener).toBe(into);
    expect(slot?.closer).toBe(out);
    expect(out.outcome).toEqual({ result: 'created', action: 'closed', slot });
    expect(plan.replayed).toEqual([]);
    expect(plan.deleted).toEqual([]);
  });

  it('takes auto as in without an open record and as out with one', () => {
    const punches = [punch('2026-11-02T08:00:00'), punch('2026-11-02T12:00:00'), punch('2026-11-02T13:00:00')];

    const plan = planTimeline(input(punches));

    expect(punches.map((p) => said(p.outcome))).toEqual(['opened', 'closed', 'opened']);
    expect(records(plan)).toEqual([
      ['2026-11-02T08:00:00', '2026-11-02T12:00:00', undefined],
      ['2026-11-02T13:00:00', null, undefined],
    ]);
  });

  it('takes punches within 60 seconds of another as the same punch, the earlier reading of each', () => {
    const punches = [
      punch('2026-11-02T08:00:30', 'in'),
      punch('2026-11-02T08:00:00', 'in'),
      punch('2026-11-02T16:00:00', 'out'),
      punch('2026-11-02T16:01:00', 'out'),
    ];

    const plan = planTimeline(input(punches));

    expect(punches.map((p) => said(p.outcome))).toEqual(['duplicate repeated_punch', 'opened', 'closed', 'duplicate repeated_punch']);
    expect(punches[0]?.outcome).toEqual({
      result: 'duplicate',
      repeated: {
        code: 'repeated_punch',
        message:
          'The employee punched at 2026-11-02T08:00:00.000Z (the record opened at 2026-11-02T08:00:00.000Z by this batch), within 60 seconds: taken as the same punch',
      },
    });
    expect(records(plan)).toEqual([['2026-11-02T08:00:00', '2026-11-02T16:00:00', undefined]]);
  });

  it('applies punches of the same second in the order sent: an out before its in is refused, and the in still opens', () => {
    const out = punch('2026-11-02T08:00:00', 'out');
    const into = punch('2026-11-02T08:00:00', 'in');

    const plan = planTimeline(input([out, into]));

    expect([said(out.outcome), said(into.outcome)]).toEqual(['rejected not_punched_in', 'opened']);
    expect(records(plan)).toEqual([['2026-11-02T08:00:00', null, undefined]]);
  });

  it('places late punches between stored records and refuses those that do not fit, changing nothing half', () => {
    const stored = [
      record(2, '2026-11-02T08:00:00', '2026-11-02T12:00:00', true),
      record(3, '2026-11-02T13:00:00', '2026-11-02T17:00:00', true),
    ];
    const lunch = [punch('2026-11-02T12:10:00', 'in'), punch('2026-11-02T12:50:00', 'out')];
    const inside = punch('2026-11-02T09:00:00', 'in');
    const unclosed = punch('2026-11-02T17:30:00', 'in');

    const plan = planTimeline(input([...lunch, inside, unclosed], { records: stored }));

    expect([...lunch, inside, unclosed].map((p) => said(p.outcome))).toEqual(['opened', 'closed', 'rejected overlap', 'opened']);
    expect(inside.outcome).toEqual({
      result: 'rejected',
      code: 'overlap',
      message: 'The time falls within attendance record 2, from 2026-11-02T08:00:00.000Z, which ends at 2026-11-02T12:00:00.000Z',
    });
    expect(records(plan)).toEqual([
      ['2026-11-02T08:00:00', '2026-11-02T12:00:00', 2],
      ['2026-11-02T12:10:00', '2026-11-02T12:50:00', undefined],
      ['2026-11-02T13:00:00', '2026-11-02T17:00:00', 3],
      ['2026-11-02T17:30:00', null, undefined],
    ]);
  });

  it('withdraws a record a late in would open when no out closes it before the next record', () => {
    const late = punch('2026-11-02T12:10:00', 'in');
    const stored = [record(3, '2026-11-02T13:00:00', '2026-11-02T17:00:00', true)];

    const plan = planTimeline(input([late], { records: stored }));

    expect(late.outcome).toEqual({
      result: 'rejected',
      code: 'overlap',
      message:
        'No punch-out follows before attendance record 3 that begins at 2026-11-02T13:00:00.000Z: the record it would open would overlap it',
    });
    expect(records(plan)).toEqual([['2026-11-02T13:00:00', '2026-11-02T17:00:00', 3]]);
  });

  it('refuses an in while punched in, an out while not, and an out that makes a shift longer than max_shift_hours', () => {
    const stored = [record(2, '2026-11-02T08:00:00', null, true)];
    const early = punch('2026-11-02T07:00:00', 'out');
    const again = punch('2026-11-02T10:00:00', 'in');
    const nextDay = punch('2026-11-03T09:00:00', 'out');

    const plan = planTimeline(input([early, again, nextDay], { records: stored }));

    expect([early, again, nextDay].map((p) => p.outcome)).toEqual([
      {
        result: 'rejected',
        code: 'not_punched_in',
        message: 'The employee is not punched in at this time: there is no open record to punch out',
      },
      {
        result: 'rejected',
        code: 'already_punched_in',
        message: 'The employee is already punched in (attendance record 2, from 2026-11-02T08:00:00.000Z): punch out first',
      },
      {
        result: 'rejected',
        code: 'shift_too_long',
        message:
          'Closing attendance record 2, from 2026-11-02T08:00:00.000Z here would make it 25 hours long, more than max_shift_hours (16): was a punch-out forgotten? Correct that record',
      },
    ]);
    expect(records(plan)).toEqual([['2026-11-02T08:00:00', null, 2]]);
  });

  it('applies again an out the log refused for want of its in once the in arrives', () => {
    const out = logged(1, '2026-11-02T16:00:00', 'out', { result: 'rejected', code: 'not_punched_in' });
    const into = punch('2026-11-02T08:00:00', 'in');
    const latestLogged = Date.parse('2026-11-02T16:00:00Z');

    const plan = planTimeline(input([into], { latestLogged, logged: [out] }));

    expect(derivationStart(input([into], { latestLogged }))).toBe(into.ms);
    expect(said(into.outcome)).toBe('opened');
    expect(plan.replayed).toHaveLength(1);
    expect(plan.replayed[0]?.logged).toBe(out);
    expect(said(plan.replayed[0]?.outcome)).toBe('closed');
    expect(records(plan)).toEqual([['2026-11-02T08:00:00', '2026-11-02T16:00:00', undefined]]);
  });

  it('keeps the id of a record the log made when an earlier reading of its punch arrives', () => {
    const stored = [record(5, '2026-11-02T08:00:40', '2026-11-02T16:00:00')];
    const log = [
      logged(1, '2026-11-02T08:00:40', 'in', { result: 'created', action: 'opened', attendance_id: 5 }),
      logged(2, '2026-11-02T16:00:00', 'out', { result: 'created', action: 'closed', attendance_id: 5 }),
    ];
    const earlier = punch('2026-11-02T08:00:00', 'in');

    const plan = planTimeline(input([earlier], { records: stored, latestLogged: Date.parse('2026-11-02T16:00:00Z'), logged: log }));

    expect(said(earlier.outcome)).toBe('opened');
    expect(plan.replayed.map((p) => [p.logged?.id, said(p.outcome)])).toEqual([
      [1, 'duplicate repeated_punch'],
      [2, 'closed'],
    ]);
    expect(records(plan)).toEqual([['2026-11-02T08:00:00', '2026-11-02T16:00:00', 5]]);
    expect(plan.slots[0]?.stored).toBe(stored[0]);
    expect(plan.deleted).toEqual([]);
  });

  it('removes a record the log made when its punch turns out to close an earlier one', () => {
    const stored = [record(5, '2026-11-02T08:00:00', '2026-11-02T12:00:00'), record(6, '2026-11-02T16:00:00', null)];
    const log = [
      logged(1, '2026-11-02T08:00:00', 'auto', { result: 'created', action: 'opened', attendance_id: 5 }),
      logged(2, '2026-11-02T12:00:00', 'auto', { result: 'created', action: 'closed', attendance_id: 5 }),
      logged(3, '2026-11-02T16:00:00', 'auto', { result: 'created', action: 'opened', attendance_id: 6 }),
    ];
    const back = punch('2026-11-02T13:00:00');
    const timeline = input([back], { records: stored, latestLogged: Date.parse('2026-11-02T16:00:00Z'), logged: log });

    const plan = planTimeline(timeline);

    // The window starts at the late punch: the morning's record ended before it and is not derived again.
    expect(derivationStart(timeline)).toBe(back.ms);
    expect(said(back.outcome)).toBe('opened');
    expect(plan.replayed.map((p) => [p.logged?.id, said(p.outcome)])).toEqual([[3, 'closed']]);
    expect(records(plan)).toEqual([
      ['2026-11-02T08:00:00', '2026-11-02T12:00:00', 5],
      ['2026-11-02T13:00:00', '2026-11-02T16:00:00', undefined],
    ]);
    expect(plan.deleted).toEqual([stored[1]]);
  });

  it('never rewrites a manual record: a late in that no out closes before it is refused', () => {
    const manual = record(2, '2026-11-02T13:00:00', '2026-11-02T17:00:00', true);
    const late = punch('2026-11-02T12:00:00', 'in');

    const plan = planTimeline(input([late], { records: [manual], latestLogged: Date.parse('2026-11-02T18:00:00Z') }));

    expect(said(late.outcome)).toBe('rejected overlap');
    expect(records(plan)).toEqual([['2026-11-02T13:00:00', '2026-11-02T17:00:00', 2]]);
    expect(plan.deleted).toEqual([]);
  });

  it('neither closes a missed punch-out nor counts it open: an auto punch after it opens, an out is not_punched_in', () => {
    const missed = { ...record(7, '2026-11-30T22:00:00', null), missed_punch_out: true };
    const out = punch('2026-12-01T06:00:00', 'out');
    const auto = punch('2026-12-02T08:00:00');
    const closing = punch('2026-12-02T16:00:00');

    const plan = planTimeline(input([out, auto, closing], { records: [missed] }));

    expect([said(out.outcome), said(auto.outcome), said(closing.outcome)]).toEqual(['rejected not_punched_in', 'opened', 'closed']);
    expect(records(plan)).toEqual([
      ['2026-11-30T22:00:00', '2026-11-30T22:00:00', 7],
      ['2026-12-02T08:00:00', '2026-12-02T16:00:00', undefined],
    ]);
    expect(plan.slots[0]?.closer).toBeUndefined();
  });

  it('keeps a missed punch-out out of a derivation: the log never opens it again, and a record may not span it', () => {
    const missed = { ...record(7, '2026-11-30T22:00:00', null), missed_punch_out: true };
    const log = [logged(1, '2026-11-30T22:00:00', 'in', { result: 'created', action: 'opened', attendance_id: 7 })];
    const late = punch('2026-11-30T21:00:00', 'in');
    const lateOut = punch('2026-11-30T23:00:00', 'out');
    const timeline = input([late, lateOut], { records: [missed], latestLogged: Date.parse('2026-11-30T22:00:00Z'), logged: log });

    const plan = planTimeline(timeline);

    expect(plan.replayed).toEqual([]);
    expect(plan.deleted).toEqual([]);
    expect([said(late.outcome), said(lateOut.outcome)]).toEqual(['rejected overlap', 'rejected not_punched_in']);
    expect(records(plan)).toEqual([['2026-11-30T22:00:00', '2026-11-30T22:00:00', 7]]);
  });

  it('derives nothing again when the log holds no later punch, and plans afresh every time', () => {
    const into = punch('2026-11-02T08:00:00', 'in');
    const timeline = input([into], { latestLogged: Date.parse('2026-11-02T08:00:00Z') });

    expect(derivationStart(timeline)).toBeUndefined();
    const first = planTimeline(timeline);
    const second = planTimeline(timeline);

    expect(second.slots).not.toBe(first.slots);
    expect(records(second)).toEqual(records(first));
    expect(into.outcome).toEqual({ result: 'created', action: 'opened', slot: second.slots[0] });
  });
});

describe('planOutsideLockedPeriods', () => {
  const october = { start: '2026-10-01', end: '2026-10-31' };
  const lockedDate = (dates: readonly string[]) => {
    const date = dates.find((day) => day >= october.start && day <= october.end);
    return date === undefined ? undefined : { date, period: october };
  };
  const lockedMessage = (date: string) =>
    `The pay period 2026-10-01 to 2026-10-31 is locked: attendance that counts on ${date} cannot change until the period is unlocked`;

  it('refuses the punches of a locked period with period_locked and plans the rest', () => {
    const punches = [
      punch('2026-10-30T08:00:00', 'in'),
      punch('2026-10-30T16:00:00', 'out'),
      punch('2026-11-02T08:00:00', 'in'),
      punch('2026-11-02T16:00:00', 'out'),
    ];

    const plan = planOutsideLockedPeriods(input(punches), lockedDate, stamp);

    expect(punches.map((p) => said(p.outcome))).toEqual(['rejected period_locked', 'rejected period_locked', 'opened', 'closed']);
    expect(punches[0]?.outcome).toEqual({ result: 'rejected', code: 'period_locked', message: lockedMessage('2026-10-30') });
    expect(records(plan)).toEqual([['2026-11-02T08:00:00', '2026-11-02T16:00:00', undefined]]);
    expect(plan.touchedDates).toEqual(['2026-11-02']);
  });

  it('refuses a punch-out that would close a record begun in a locked period, leaving it open', () => {
    const night = record(4, '2026-10-31T22:00:00', null);
    const out = punch('2026-11-01T06:00:00');

    const plan = planOutsideLockedPeriods(input([out], { records: [night] }), lockedDate, stamp);

    expect(out.outcome).toEqual({ result: 'rejected', code: 'period_locked', message: lockedMessage('2026-10-31') });
    expect(records(plan)).toEqual([['2026-10-31T22:00:00', null, 4]]);
    expect(plan.slots[0]?.closer).toBeUndefined();
    expect(plan.touchedDates).toEqual([]);
  });

  it('refuses a late punch whose derivation would change a record of a locked period', () => {
    const stored = [record(1, '2026-10-31T20:00:00', '2026-11-01T04:00:00'), record(2, '2026-11-02T08:00:00', '2026-11-02T16:00:00')];
    const log = [
      logged(1, '2026-10-31T20:00:00', 'in', { result: 'created', action: 'opened', attendance_id: 1 }),
      logged(2, '2026-11-01T04:00:00', 'out', { result: 'created', action: 'closed', attendance_id: 1 }),
      logged(3, '2026-11-02T08:00:00', 'in', { result: 'created', action: 'opened', attendance_id: 2 }),
      logged(4, '2026-11-02T16:00:00', 'out', { result: 'created', action: 'closed', attendance_id: 2 }),
    ];
    const lateOut = punch('2026-11-01T02:00:00', 'out');
    const timeline = input([lateOut], { records: stored, latestLogged: Date.parse('2026-11-02T16:00:00Z'), logged: log });

    // Derived again from the start of the night shift that holds the late punch.
    expect(derivationStart(timeline)).toBe(Date.parse('2026-10-31T20:00:00Z'));
    const plan = planOutsideLockedPeriods(timeline, lockedDate, stamp);

    expect(lateOut.outcome).toEqual({ result: 'rejected', code: 'period_locked', message: lockedMessage('2026-10-31') });
    expect(records(plan)).toEqual([
      ['2026-10-31T20:00:00', '2026-11-01T04:00:00', 1],
      ['2026-11-02T08:00:00', '2026-11-02T16:00:00', 2],
    ]);
    expect(plan.replayed).toEqual([]);
    expect(plan.deleted).toEqual([]);
  });

  it('applies a late punch that derives only records after the locked period', () => {
    const stored = [record(1, '2026-10-31T20:00:00', '2026-11-01T04:00:00'), record(2, '2026-11-02T08:00:00', '2026-11-02T16:00:00')];
    const log = [
      logged(3, '2026-11-02T08:00:00', 'in', { result: 'created', action: 'opened', attendance_id: 2 }),
      logged(4, '2026-11-02T16:00:00', 'out', { result: 'created', action: 'closed', attendance_id: 2 }),
    ];
    const lunch = [punch('2026-11-02T12:00:00', 'out'), punch('2026-11-02T12:30:00', 'in')];

    const plan = planOutsideLockedPeriods(
      input(lunch, { records: stored, latestLogged: Date.parse('2026-11-02T16:00:00Z'), logged: log }),
      lockedDate,
      stamp,
    );

    expect(lunch.map((p) => said(p.outcome))).toEqual(['closed', 'opened']);
    expect(plan.replayed.map((p) => [p.logged?.id, said(p.outcome)])).toEqual([
      [3, 'opened'],
      [4, 'closed'],
    ]);
    expect(records(plan)).toEqual([
      ['2026-10-31T20:00:00', '2026-11-01T04:00:00', 1],
      ['2026-11-02T08:00:00', '2026-11-02T12:00:00', 2],
      ['2026-11-02T12:30:00', '2026-11-02T16:00:00', undefined],
    ]);
    expect(plan.touchedDates).toEqual(['2026-11-02', '2026-11-02', '2026-11-02']);
  });
});
