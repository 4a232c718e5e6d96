import type { BadgedAttendanceEmployee } from '../../src/attendance/repository';
import { type ReceivedEntry, receiveEntries } from '../../src/terminals/entries';
import { punchLogEntrySchema } from '../../src/terminals/schemas';

const ada: BadgedAttendanceEmployee = {
  id: 7,
  supervisor_id: null,
  timezone: 'Europe/Berlin',
  display: 'Ada Lovelace',
  termination_date: null,
  attendance_device_id: 'Badge-7',
};
const leaver: BadgedAttendanceEmployee = { ...ada, id: 8, timezone: 'UTC', termination_date: '2026-11-18', attendance_device_id: '8' };
const known = {
  employees: [ada, leaver],
  received: new Set(['sent-before']),
  timezone: undefined,
  now: new Date('2026-11-20T12:00:00Z'),
  settings: { maxShiftHours: 16, punchFutureToleranceSeconds: 300 },
};
/** Entries as the route passes them: parsed, with their defaults. */
const parsed = (entries: object[]) => entries.map((entry) => punchLogEntrySchema.parse(entry));
const summary = ({ employee, ms, direction, outcome }: ReceivedEntry) => ({
  employee: employee?.id,
  time: ms === undefined ? undefined : new Date(ms).toISOString(),
  direction,
  outcome,
});

describe('receiveEntries', () => {
  it('answers a log id sent before, or again in the batch, as a duplicate, whatever else the entry says', () => {
    const batch = receiveEntries(
      parsed([
        { log_id: 'sent-before', employee: 7, time: '2026-11-20T08:00:00Z' },
        { log_id: 'a', employee: 7, time: '2026-11-20T08:00:00Z' },
        { log_id: 'a', employee: 99, time: '2026-11-20T09:00:00Z' },
        { log_id: 'A', employee: 7, time: '2026-11-20T10:00:00Z', direction: 'out' },
      ]),
      known,
    );

    expect(batch.map(summary)).toEqual([
      { employee: undefined, time: undefined, direction: 'auto', outcome: { result: 'duplicate' } },
      { employee: 7, time: '2026-11-20T08:00:00.000Z', direction: 'auto', outcome: undefined },
      { employee: undefined, time: undefined, direction: 'auto', outcome: { result: 'duplicate' } },
      { employee: 7, time: '2026-11-20T10:00:00.000Z', direction: 'out', outcome: undefined },
    ]);
  });

  it('finds employees by badge regardless of case, or by id, and refuses unknown ones', () => {
    const batch = receiveEntries(
      parsed([
        { log_id: '1', attendance_device_id: 'BADGE-7', time: '2026-11-20T08:00:00Z' },
        { log_id: '2', attendance_device_id: 'nobody', time: '2026-11-20T08:00:00Z' },
        { log_id: '3', employee: 99, time: '2026-11-20T08:00:00Z' },
      ]),
      known,
    );

    expect(batch.map((entry) => [entry.employee?.id, entry.outcome])).toEqual([
      [7, undefined],
      [undefined, { result: 'rejected', code: 'unknown_employee', message: 'No employee has attendance_device_id nobody' }],
      [undefined, { result: 'rejected', code: 'unknown_employee', message: 'No employee has id 99' }],
    ]);
  });

  it("reads wall-clock times on the device's clock, else the employee's, to the whole second; refuses a time the clocks skip", () => {
    const entries = parsed([
      { log_id: '1', employee: 7, time: '2026-11-20 08:00:00' },
      { log_id: '2', employee: 7, time: '2026-11-20T08:00:00.900Z' },
      { log_id: '3', employee: 7, time: '2026-03-29 02:30:00' },
    ]);

    const onEmployeeClock = receiveEntries(entries, known).map(summary);
    const onDeviceClock = receiveEntries(entries, { ...known, timezone: 'Asia/Tokyo' }).map(summary);

    expect(onEmployeeClock.map((entry) => entry.time)).toEqual(['2026-11-20T07:00:00.000Z', '2026-11-20T08:00:00.000Z', undefined]);
    expect(onEmployeeClock[2]?.outcome).toEqual({
      result: 'rejected',
      code: 'invalid_time',
      message: '2026-03-29 02:30:00 does not exist in Europe/Berlin: the clocks skip it for daylight saving time',
    });
    expect(onDeviceClock.map((entry) => entry.time)).toEqual([
      '2026-11-19T23:00:00.000Z',
      '2026-11-20T08:00:00.000Z',
      '2026-03-28T17:30:00.000Z',
    ]);
  });

  it('refuses times beyond the future tolerance and punches after the last day, keeping their time for the log', () => {
    const batch = receiveEntries(
      parsed([
        { log_id: '1', employee: 7, time: '2026-11-20T12:05:00Z' },
        { log_id: '2', employee: 7, time: '2026-11-20T12:05:01Z' },
        { log_id: '3', employee: 8, time: '2026-11-18T23:59:59Z' },
        { log_id: '4', employee: 8, time: '2026-11-19T00:00:00Z' },
      ]),
      known,
    );

    expect(batch.map(summary)).toEqual([
      { employee: 7, time: '2026-11-20T12:05:00.000Z', direction: 'auto', outcome: undefined },
      {
        employee: 7,
        time: '2026-11-20T12:05:01.000Z',
        direction: 'auto',
        outcome: {
          result: 'rejected',
          code: 'future_time',
          message: 'The time is more than 300 seconds in the future (punch_future_tolerance_seconds)',
        },
      },
      { employee: 8, time: '2026-11-18T23:59:59.000Z', direction: 'auto', outcome: undefined },
      {
        employee: 8,
        time: '2026-11-19T00:00:00.000Z',
        direction: 'auto',
        outcome: {
          result: 'rejected',
          code: 'employee_terminated',
          message: "The employee's last day was 2026-11-18: no punch may fall after it (this one is on 2026-11-19 in UTC)",
        },
      },
    ]);
  });
});
