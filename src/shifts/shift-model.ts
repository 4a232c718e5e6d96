import { fromSqlDateTime, sqlDateTimeToIso } from '../db/sql-time';
import type { ShiftRules } from './type-fields';
import { plannedHoursOf } from './times';

// A stored shift and its read shape (CONTRACT 6.7).

export const SHIFT_STATUSES = ['draft', 'published', 'cancelled'] as const;
export type ShiftStatus = (typeof SHIFT_STATUSES)[number];

/** The columns of a `shifts` row but its id; instants as UTC text 'YYYY-MM-DD HH:MM:SS'. */
export interface ShiftColumns extends ShiftRules {
  employee_id: number | null;
  shift_type_id: number | null;
  date: string;
  start_local: string;
  end_local: string;
  timezone: string;
  start_utc: string;
  end_utc: string;
  status: ShiftStatus;
  rotation_id: number | null;
  edited: boolean;
  version: number;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

/** A shift as read: its row with the display names of its references and the employee's supervisor (access). */
export interface Shift extends ShiftColumns {
  id: number;
  employee_display: string | null;
  supervisor_id: number | null;
  shift_type_name: string | null;
}

/** The read shape, every field always present (the ETag hashes this whole shape). */
export function toShiftResponse(shift: Shift): Record<string, unknown> {
  const start = fromSqlDateTime(shift.start_utc);
  const end = fromSqlDateTime(shift.end_utc);
  return {
    id: String(shift.id),
    employee: shift.employee_id === null ? null : { type: 'Employee', id: String(shift.employee_id), display: shift.employee_display },
    shift_type:
      shift.shift_type_id === null ? null : { type: 'ShiftType', id: String(shift.shift_type_id), display: shift.shift_type_name },
    date: shift.date,
    start_local: shift.start_local,
    end_local: shift.end_local,
    timezone: shift.timezone,
    start: sqlDateTimeToIso(shift.start_utc),
    end: sqlDateTimeToIso(shift.end_utc),
    planned_hours: plannedHoursOf(start, end, shift.unpaid_break_minutes),
    unpaid_break_minutes: shift.unpaid_break_minutes,
    late_grace_minutes: shift.late_grace_minutes,
    early_exit_grace_minutes: shift.early_exit_grace_minutes,
    check_in_window_minutes: shift.check_in_window_minutes,
    check_out_window_minutes: shift.check_out_window_minutes,
    half_day_below_hours: shift.half_day_below_hours,
    absent_below_hours: shift.absent_below_hours,
    status: shift.status,
    rotation: shift.rotation_id === null ? null : String(shift.rotation_id),
    notes: shift.notes,
    created_at: sqlDateTimeToIso(shift.created_at),
    updated_at: sqlDateTimeToIso(shift.updated_at),
  };
}

export function shiftJson(shift: Shift): string {
  return JSON.stringify(toShiftResponse(shift));
}
