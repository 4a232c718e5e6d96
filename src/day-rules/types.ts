// The input and output of the day status (CONTRACT 6.7, docs/schedules.md): plain values, instants
// as milliseconds since the epoch. No database, no clock: the adapter (src/days/) passes `now`.

/** A published shift of the employee. */
export interface DayShift {
  id: number;
  /** The business date: the local date of its start. */
  date: string;
  start: number;
  end: number;
  unpaid_break_minutes: number;
  late_grace_minutes: number;
  early_exit_grace_minutes: number;
  check_in_window_minutes: number;
  check_out_window_minutes: number;
  half_day_below_hours: number | null;
  absent_below_hours: number | null;
}

/** An attendance record of the employee; `end` null while open. */
export interface DayRecord {
  id: number;
  start: number;
  end: number | null;
  /** The local date of its start, on the record's own wall clock. */
  localDate: string;
}

export interface DayLeave {
  id: number;
  portion: 'full' | 'am' | 'pm' | 'hours';
  status: 'pending' | 'approved';
}

export interface DayHoliday {
  id: number;
  portion: 'full' | 'half';
}

/** Everything the status of one employee's dates from..to depends on. */
export interface EmployeeDaysInput {
  from: string;
  to: string;
  now: number;
  joinedDate: string | null;
  terminationDate: string | null;
  /** Published shifts dated from the day before `from` to the day after `to` (matching looks across midnight). */
  shifts: readonly DayShift[];
  /** Records starting in the same span. */
  records: readonly DayRecord[];
  /** Leave and holiday of a date; null when there is none. */
  leaveOn: (date: string) => DayLeave | null;
  holidayOn: (date: string) => DayHoliday | null;
}

export const DAY_STATUSES = [
  'present',
  'absent',
  'half_day',
  'on_leave',
  'holiday',
  'day_off',
  'unscheduled',
  'incomplete',
  'pending',
] as const;
export type DayStatusName = (typeof DAY_STATUSES)[number];

export const DAY_FLAGS = ['late', 'early_exit', 'worked_on_leave', 'holiday_worked', 'leave_pending'] as const;
export type DayFlag = (typeof DAY_FLAGS)[number];

export interface DayStatus {
  date: string;
  status: DayStatusName;
  late_minutes: number;
  early_exit_minutes: number;
  planned_hours: number;
  worked_hours: number;
  shifts: number[];
  attendance: number[];
  leave: number | null;
  holiday: number | null;
  flags: DayFlag[];
}
