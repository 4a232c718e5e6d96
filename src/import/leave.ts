import type { Knex } from 'knex';
import { WEEKDAY_NAMES, type WeekdayName } from '../leave-rules/hours';
import { readSetting, SETTING, writeSetting } from '../settings/repository';
import { daysBetween, isCalendarDate } from '../time';
import type { IcehrmSource, SourceRow } from './icehrm-source';
import { type ImportContext, quoted, textOrNull } from './report';

// IceHrm's leave module (docs/leave.md, "From IceHrm"): LeaveTypes, EmployeeLeaves with their
// EmployeeLeaveDays, HoliDays and WorkDays, ids kept. Each row is compared with what is stored,
// so a second run changes nothing; what cannot be carried is a reject or a note of the report.

const STATUSES: Record<string, 'pending' | 'approved' | 'rejected' | 'cancelled'> = {
  Approved: 'approved',
  Pending: 'pending',
  Processing: 'pending',
  Rejected: 'rejected',
  Cancelled: 'cancelled',
  // The leave still stands until the cancellation is decided.
  'Cancellation Requested': 'approved',
};

const PORTIONS: Record<string, { portion: 'full' | 'am' | 'pm' | 'hours'; hours: number | null }> = {
  'Full Day': { portion: 'full', hours: null },
  'Half Day - Morning': { portion: 'am', hours: null },
  'Half Day - Afternoon': { portion: 'pm', hours: null },
  '1 Hour - Morning': { portion: 'hours', hours: 1 },
  '2 Hours - Morning': { portion: 'hours', hours: 2 },
  '3 Hours - Morning': { portion: 'hours', hours: 3 },
  '1 Hour - Afternoon': { portion: 'hours', hours: 1 },
  '2 Hours - Afternoon': { portion: 'hours', hours: 2 },
  '3 Hours - Afternoon': { portion: 'hours', hours: 3 },
};

const dateOf = (value: unknown): string | null => {
  const text = textOrNull(value)?.slice(0, 10) ?? null;
  return text !== null && isCalendarDate(text) ? text : null;
};

/** Imports the leave module after the employees (whose ids it needs); nothing when IceHrm has none. */
export async function importLeave(context: ImportContext, source: IcehrmSource, employees: Map<number, string>): Promise<void> {
  const [types, leaves, days, holidays, workDays, countries] = await Promise.all([
    source.optionalRows('LeaveTypes'),
    source.optionalRows('EmployeeLeaves'),
    source.optionalRows('EmployeeLeaveDays'),
    source.optionalRows('HoliDays'),
    source.optionalRows('WorkDays'),
    source.optionalRows('Country'),
  ]);
  if (!types || !leaves || !days || !holidays || !workDays) {
    context.report.notes.push("IceHrm's database has no leave tables (LeaveTypes, EmployeeLeaves, HoliDays, WorkDays): no leave imported");
    return;
  }
  const countryCodes = new Map((countries ?? []).map((row) => [Number(row.id), String(row.code)]));
  const write = async (step: (trx: Knex.Transaction | undefined) => Promise<void>) => {
    if (context.dryRun) await step(undefined);
    else await context.db.transaction(step);
  };
  let typeIds = new Set<number>();
  await write(async (trx) => {
    typeIds = await importLeaveTypes(context, trx, types);
  });
  await write((trx) => importLeaves(context, trx, leaves, days, employees, typeIds));
  await write((trx) => importHolidays(context, trx, holidays, countryCodes));
  await write((trx) => importWorkWeek(context, trx, workDays));
}

/** The leave types, ids kept; the ids there are once the step is done (a dry run's as planned). */
async function importLeaveTypes(context: ImportContext, trx: Knex.Transaction | undefined, rows: SourceRow[]): Promise<Set<number>> {
  const counts = context.report.counts('leave types');
  const db = trx ?? context.db;
  const stored = new Map(
    ((await db('leave_types').select('id', 'name')) as Array<{ id: number; name: string }>).map((row) => [
      Number(row.id),
      String(row.name),
    ]),
  );
  const names = new Map([...stored].map(([id, name]) => [name.toLowerCase(), id]));
  for (const row of rows) {
    counts.read++;
    const id = Number(row.id);
    const name = textOrNull(row.name)?.trim().slice(0, 100) ?? '';
    const holder = names.get(name.toLowerCase());
    if (!name || (holder !== undefined && holder !== id)) {
      context.report.reject('leave types', `leave type ${id}: name ${quoted(name)} is empty or used by another leave type here`);
      continue;
    }
    if (stored.get(id) === name) {
      counts.unchanged++;
      continue;
    }
    if (stored.has(id)) {
      counts.updated++;
      if (trx) await trx('leave_types').where({ id }).update({ name, updated_at: context.nowSql });
    } else {
      counts.added++;
      if (trx)
        await trx('leave_types').insert({
          id,
          name,
          paid: true,
          code: 'PTO',
          private: true,
          include_holidays: false,
          created_at: context.nowSql,
          updated_at: context.nowSql,
        });
    }
    names.set(name.toLowerCase(), id);
  }
  context.progress.tableDone('leave types', counts);
  return new Set(names.values());
}

interface PlannedLeave {
  columns: {
    id: number;
    employee_id: number;
    leave_type_id: number;
    start_date: string;
    end_date: string;
    status: string;
    note: string | null;
  };
  days: Array<{ date: string; portion: string; hours: number | null }>;
}

async function importLeaves(
  context: ImportContext,
  trx: Knex.Transaction | undefined,
  rows: SourceRow[],
  dayRows: SourceRow[],
  employees: Map<number, string>,
  types: ReadonlySet<number>,
): Promise<void> {
  const counts = context.report.counts('leaves');
  const db = trx ?? context.db;
  const storedLeaves = new Map(
    ((await db('leaves').select('id', 'employee_id', 'leave_type_id', 'start_date', 'end_date', 'status', 'note')) as SourceRow[]).map(
      (row) => [
        Number(row.id),
        JSON.stringify([
          Number(row.employee_id),
          Number(row.leave_type_id),
          dateOf(row.start_date),
          dateOf(row.end_date),
          row.status,
          row.note ?? null,
        ]),
      ],
    ),
  );
  // The dates live leaves hold here, by employee: an IceHrm leave on one of them is left out.
  const held = new Map(
    ((await db('leave_days').whereNotNull('live_employee_id').select('live_employee_id', 'date', 'leave_id')) as SourceRow[]).map((row) => [
      `${Number(row.live_employee_id)} ${dateOf(row.date)}`,
      Number(row.leave_id),
    ]),
  );
  const daysOf = new Map<number, SourceRow[]>();
  for (const day of dayRows) {
    const leave = Number(day.employee_leave);
    if (!daysOf.has(leave)) daysOf.set(leave, []);
    daysOf.get(leave)!.push(day);
  }
  const planned: PlannedLeave[] = [];
  for (const row of rows) {
    counts.read++;
    const id = Number(row.id);
    const what = `leave ${id}`;
    const employee = Number(row.employee);
    const start = dateOf(row.date_start);
    const end = dateOf(row.date_end);
    const status = STATUSES[String(row.status)];
    let problem: string | undefined;
    if (!employees.has(employee)) problem = `employee ${employee} is not an employee here`;
    else if (!types.has(Number(row.leave_type))) problem = `leave type ${Number(row.leave_type)} was not imported`;
    else if (!start || !end || end < start || daysBetween(start, end) >= 365)
      problem = 'its dates are missing, backwards or more than a year apart';
    else if (!status) problem = `status ${quoted(String(row.status))} is not one of IceHrm's`;
    if (problem) {
      context.report.reject('leaves', `${what}: ${problem}`);
      continue;
    }
    const days = (daysOf.get(id) ?? [])
      .map((day) => ({ date: dateOf(day.leave_date), ...(PORTIONS[String(day.leave_type)] ?? PORTIONS['Full Day']!) }))
      .filter(
        (day): day is { date: string; portion: 'full' | 'am' | 'pm' | 'hours'; hours: number | null } =>
          day.date !== null && day.date >= start! && day.date <= end!,
      );
    const unique = [...new Map(days.map((day) => [day.date, day])).values()].sort((a, b) => (a.date < b.date ? -1 : 1));
    if (unique.length === 0) {
      context.report.reject('leaves', `${what}: none of its days falls from ${start} to ${end}`);
      continue;
    }
    const columns = {
      id,
      employee_id: employee,
      leave_type_id: Number(row.leave_type),
      start_date: start!,
      end_date: end!,
      status: status!,
      note: textOrNull(row.details),
    };
    const fingerprint = JSON.stringify([employee, columns.leave_type_id, start, end, status, columns.note]);
    if (storedLeaves.has(id)) {
      if (storedLeaves.get(id) === fingerprint) counts.unchanged++;
      else
        context.report.reject(
          'leaves',
          `${what}: changed in IceHrm since it was imported; change it here (POST /leaves/${id}/cancel, ...)`,
        );
      continue;
    }
    const live = status === 'pending' || status === 'approved';
    const clash = live ? unique.find((day) => held.has(`${employee} ${day.date}`)) : undefined;
    if (clash) {
      context.report.reject(
        'leaves',
        `${what}: another pending or approved leave (${held.get(`${employee} ${clash.date}`)}) holds ${clash.date}`,
      );
      continue;
    }
    if (live) for (const day of unique) held.set(`${employee} ${day.date}`, id);
    if (row.status === 'Cancellation Requested') context.report.notes.push(`${what}: cancellation requested in IceHrm: imported approved`);
    counts.added++;
    planned.push({ columns, days: unique });
  }
  if (trx) {
    for (const leave of planned) {
      const live = leave.columns.status === 'pending' || leave.columns.status === 'approved';
      await trx('leaves').insert({
        ...leave.columns,
        decided_by: null,
        decided_at: null,
        version: 1,
        created_at: context.nowSql,
        updated_at: context.nowSql,
      });
      await trx('leave_days').insert(
        leave.days.map((day) => ({ leave_id: leave.columns.id, ...day, live_employee_id: live ? leave.columns.employee_id : null })),
      );
    }
  }
  context.progress.tableDone('leaves', counts);
}

async function importHolidays(
  context: ImportContext,
  trx: Knex.Transaction | undefined,
  rows: SourceRow[],
  countryCodes: Map<number, string>,
): Promise<void> {
  const counts = context.report.counts('holidays');
  const db = trx ?? context.db;
  const storedRows = (await db('holidays').select('id', 'date', 'name', 'portion', 'country')) as SourceRow[];
  const stored = new Map(
    storedRows.map((row) => [Number(row.id), JSON.stringify([dateOf(row.date), row.name, row.portion, row.country ?? null])]),
  );
  // The unique key here: country, date and name.
  const keys = new Map(storedRows.map((row) => [`${String(row.country ?? '')}|${dateOf(row.date)}|${String(row.name)}`, Number(row.id)]));
  for (const row of rows) {
    counts.read++;
    const id = Number(row.id);
    const date = dateOf(row.dateh);
    const name = textOrNull(row.name)?.trim().slice(0, 150) ?? '';
    const countryId = row.country === null || row.country === undefined || Number(row.country) === 0 ? null : Number(row.country);
    const country = countryId === null ? null : (countryCodes.get(countryId) ?? undefined);
    if (!date || !name || country === undefined) {
      context.report.reject(
        'holidays',
        `holiday ${id}: ${!date ? 'no date' : !name ? 'no name' : `country ${countryId} is not one of IceHrm's countries`}`,
      );
      continue;
    }
    const key = `${country ?? ''}|${date}|${name}`;
    if ((keys.get(key) ?? id) !== id) {
      context.report.reject('holidays', `holiday ${id}: ${quoted(name)} on ${date} is here already (holiday ${keys.get(key)})`);
      continue;
    }
    keys.set(key, id);
    const columns = { date, name, portion: row.status === 'Half Day' ? 'half' : 'full', country };
    const fingerprint = JSON.stringify([date, name, columns.portion, country]);
    if (stored.get(id) === fingerprint) {
      counts.unchanged++;
      continue;
    }
    if (stored.has(id)) {
      counts.updated++;
      if (trx) await trx('holidays').where({ id }).update(columns);
    } else {
      counts.added++;
      if (trx) await trx('holidays').insert({ id, ...columns, paid: true, created_at: context.nowSql });
    }
  }
  context.progress.tableDone('holidays', counts);
}

/**
 * WorkDays without a country become the work week (a Half Day counts as a working day, noted);
 * a country's own work days are not carried (the work week is one for the instance), noted.
 */
async function importWorkWeek(context: ImportContext, trx: Knex.Transaction | undefined, rows: SourceRow[]): Promise<void> {
  const counts = context.report.counts('work days');
  const everyone = rows.filter((row) => row.country === null || row.country === undefined || Number(row.country) === 0);
  counts.read = rows.length;
  const byCountry = rows.length - everyone.length;
  if (byCountry > 0)
    context.report.notes.push(`work days: ${byCountry} of a country's own are not carried (the work week here is one for everyone)`);
  if (everyone.length === 0) return context.progress.tableDone('work days', counts);
  const working = new Set<WeekdayName>();
  for (const row of everyone) {
    const day = String(row.name).toLowerCase() as WeekdayName;
    if (!WEEKDAY_NAMES.includes(day)) {
      context.report.reject('work days', `work day ${Number(row.id)}: ${quoted(String(row.name))} is not a weekday`);
      continue;
    }
    if (row.status === 'Half Day') context.report.notes.push(`work days: ${row.name} is a half day in IceHrm: a working day here`);
    if (row.status !== 'Non-working Day') working.add(day);
  }
  const value = JSON.stringify(WEEKDAY_NAMES.filter((day) => working.has(day)));
  const current = await readSetting(trx ?? context.db, SETTING.workWeek);
  if (current === value) counts.unchanged = everyone.length;
  else {
    counts.updated = everyone.length;
    if (trx) await writeSetting(trx, SETTING.workWeek, value, context.now);
  }
  context.progress.tableDone('work days', counts);
}
