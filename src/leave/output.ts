import { sqlDateTimeToIso } from '../db/sql-time';
import type { Holiday } from './holidays-repository';
import type { Leave, LeaveType } from './repository';

// The read shapes of CONTRACT 6.8. Ids are strings on the wire.

export function toLeaveTypeResponse(type: LeaveType): Record<string, unknown> {
  return {
    id: String(type.id),
    name: type.name,
    paid: type.paid,
    code: type.code,
    private: type.private,
    include_holidays: type.include_holidays,
  };
}

export function toLeaveResponse(leave: Leave): Record<string, unknown> {
  return {
    id: String(leave.id),
    employee: { type: 'Employee', id: String(leave.employee_id), display: leave.employee_display },
    leave_type: { type: 'LeaveType', id: String(leave.leave_type_id), display: leave.leave_type_name },
    start_date: leave.start_date,
    end_date: leave.end_date,
    days: leave.days.map((day) =>
      day.portion === 'hours' ? { date: day.date, portion: day.portion, hours: day.hours } : { date: day.date, portion: day.portion },
    ),
    status: leave.status,
    note: leave.note,
    decided_by: leave.decided_by === null ? null : { type: 'User', id: String(leave.decided_by), display: leave.decided_by_display ?? '' },
    decided_at: leave.decided_at === null ? null : sqlDateTimeToIso(leave.decided_at),
    created_at: sqlDateTimeToIso(leave.created_at),
    updated_at: sqlDateTimeToIso(leave.updated_at),
  };
}

/** The read shape as JSON text: the same for every reader, so it is also the state its ETag hashes. */
export function leaveJson(leave: Leave): string {
  return JSON.stringify(toLeaveResponse(leave));
}

export function toHolidayResponse(holiday: Holiday): Record<string, unknown> {
  return {
    id: String(holiday.id),
    date: holiday.date,
    name: holiday.name,
    portion: holiday.portion,
    country: holiday.country,
    paid: holiday.paid,
  };
}
