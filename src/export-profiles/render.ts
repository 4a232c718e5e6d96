import { type Code, CODES, type ProfileDefinition } from './definition';

// Writing a period's timesheets in a profile (docs/pay-periods.md, "Export profiles"). Pure: the
// export (src/pay-periods/export.ts) reads the rows and hands each employee's days here.

/** What a file may say about an employee, as read (or as frozen at the lock). */
export interface EmployeeFields {
  id: number;
  /** The employee's code, employee_id on the wire. */
  code: string;
  payroll_id: string | null;
  first_name: string;
  last_name: string;
  department: string | null;
  job_title: string | null;
  pay_grade: string | null;
}

/** One date's classified seconds. */
export interface DaySeconds {
  date: string;
  regular: number;
  overtime: number;
  double_time: number;
  /** Paid leave (under its code) and paid holiday (HOL) seconds of the date (docs/leave.md). */
  paid?: ReadonlyArray<{ code: string; seconds: number }>;
}

/** A date's seconds per code: REG, OT and DT, then its paid leave and holiday codes. */
function secondsByCode(day: DaySeconds): Array<{ code: string; seconds: number }> {
  return [...CODES.map((code) => ({ code, seconds: SECONDS_OF[code](day) })), ...(day.paid ?? [])];
}

export interface PeriodContext {
  start: string;
  end: string;
  /** The pay group's name (pay groups do not exist yet: `Default`). */
  group: string;
}

/**
 * A CSV text field (RFC 4180) for a file delimited by `delimiter`: quoted when it holds the
 * delimiter, a quote, CR or LF; quotes doubled. Text beginning with =, +, -, @, tab or CR gets a
 * leading ' first, so a spreadsheet shows it rather than running it as a formula (CONTRACT 6.6).
 * Numbers and dates the server writes do not come through here.
 */
export function csvCell(value: string, delimiter = ','): string {
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return text.includes(delimiter) || /["\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const SECONDS_OF: Record<Code, (day: DaySeconds) => number> = {
  REG: (day) => day.regular,
  OT: (day) => day.overtime,
  DT: (day) => day.double_time,
};

/** Units of the file per hour: hundredths for 2 decimals, minutes for hh:mm. */
export function unitsPerHour(definition: Pick<ProfileDefinition, 'hours_format' | 'decimals'>): number {
  return definition.hours_format === 'hh:mm' ? 60 : 10 ** definition.decimals;
}

/** Seconds in units, rounded half up (exact integer arithmetic: seconds are whole). */
function roundedUnits(seconds: number, perHour: number): number {
  return Math.floor((2 * seconds * perHour + 3600) / 7200);
}

/**
 * Largest-remainder rounding: the units of each part, summing exactly to the rounded total of
 * all of them (CONTRACT 6.6, "Rows add up"). Each part gets its whole units, then the parts with
 * the largest remainders one more each until the total is reached; a tie goes to the earlier part.
 */
export function allocateUnits(seconds: readonly number[], perHour: number): number[] {
  const exact = seconds.map((value) => value * perHour);
  const units = exact.map((value) => Math.floor(value / 3600));
  const total = roundedUnits(
    seconds.reduce((sum, value) => sum + value, 0),
    perHour,
  );
  let missing = total - units.reduce((sum, value) => sum + value, 0);
  if (missing > 0) {
    const order = exact
      .map((value, index) => ({ index, remainder: value % 3600 }))
      .sort((a, b) => b.remainder - a.remainder || a.index - b.index);
    for (const { index } of order) {
      if (missing === 0) break;
      units[index]! += 1;
      missing -= 1;
    }
  }
  return units;
}

/** Units written as the profile says: "8.50" (2 decimals), "8" (0), "8:30" (hh:mm). */
export function formatUnits(units: number, definition: Pick<ProfileDefinition, 'hours_format' | 'decimals'>): string {
  // An adjustment's hours may be negative: "-6.00", "-0:30".
  if (units < 0) return `-${formatUnits(-units, definition)}`;
  if (definition.hours_format === 'hh:mm') return `${Math.floor(units / 60)}:${String(units % 60).padStart(2, '0')}`;
  if (definition.decimals === 0) return String(units);
  const scale = 10 ** definition.decimals;
  return `${Math.floor(units / scale)}.${String(units % scale).padStart(definition.decimals, '0')}`;
}

/** One row of an employee's hours: a date and code (long) or the period (wide). */
interface Row {
  date?: string;
  code?: string;
  units?: number;
  byCode?: Record<string, number>;
}

/**
 * The rows of a long layout: each date and code with seconds, its hours rounded so that each
 * code's rows add up to the code's total. A row of 0 units is left out unless `include_zero`.
 */
export function longRows(
  days: readonly DaySeconds[],
  definition: Pick<ProfileDefinition, 'hours_format' | 'decimals' | 'include_zero'>,
): Array<{ date: string; code: string; units: number }> {
  const perHour = unitsPerHour(definition);
  const parts: Array<{ date: string; code: string; seconds: number; units: number }> = [];
  for (const day of days) {
    for (const { code, seconds } of secondsByCode(day)) {
      if (seconds > 0) parts.push({ date: day.date, code, seconds, units: 0 });
    }
  }
  for (const code of new Set(parts.map((part) => part.code))) {
    const ofCode = parts.filter((part) => part.code === code);
    allocateUnits(
      ofCode.map((part) => part.seconds),
      perHour,
    ).forEach((units, index) => (ofCode[index]!.units = units));
  }
  return parts.filter((part) => part.units > 0 || definition.include_zero).map(({ date, code, units }) => ({ date, code, units }));
}

/** The period's units per code of a wide layout; undefined for a row to leave out. */
export function wideRow(
  days: readonly DaySeconds[],
  definition: Pick<ProfileDefinition, 'hours_format' | 'decimals' | 'include_zero'>,
): Record<string, number> | undefined {
  const perHour = unitsPerHour(definition);
  let worked = 0;
  const seconds: Record<string, number> = {};
  for (const day of days) {
    for (const part of secondsByCode(day)) seconds[part.code] = (seconds[part.code] ?? 0) + part.seconds;
  }
  const byCode: Record<string, number> = {};
  for (const [code, sum] of Object.entries(seconds)) {
    worked += sum;
    byCode[code] = roundedUnits(sum, perHour);
  }
  if (worked === 0) return undefined;
  if (!definition.include_zero && Object.values(byCode).every((units) => units === 0)) return undefined;
  return byCode;
}

/**
 * The rows of a long layout's adjustment (docs/pay-periods.md, "Adjustments after a re-lock"): each
 * date and code whose units differ between the files of `before` and `after`, with the signed
 * difference, so that the rows of `before`'s file plus these are the rows of `after`'s.
 */
export function adjustmentRows(
  before: readonly DaySeconds[],
  after: readonly DaySeconds[],
  definition: Pick<ProfileDefinition, 'hours_format' | 'decimals'>,
): Array<{ date: string; code: string; units: number }> {
  const shown = { ...definition, include_zero: false };
  const key = (row: { date: string; code: string }) => `${row.date} ${row.code}`;
  const rows = new Map<string, { date: string; code: string; units: number }>();
  for (const row of longRows(before, shown)) rows.set(key(row), { ...row, units: -row.units });
  for (const row of longRows(after, shown)) {
    const was = rows.get(key(row));
    rows.set(key(row), { ...row, units: row.units + (was?.units ?? 0) });
  }
  return [...rows.values()]
    .filter((row) => row.units !== 0)
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : codeOrder(a.code, b.code)));
}

/** REG, OT and DT first, in that order, then the leave and holiday codes by name. */
function codeOrder(a: string, b: string): number {
  const [i, j] = [CODES.indexOf(a as Code), CODES.indexOf(b as Code)];
  if (i >= 0 || j >= 0) return (i < 0 ? CODES.length : i) - (j < 0 ? CODES.length : j);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A wide layout's adjustment: each code's signed difference of the period's units; undefined when none differs. */
export function wideAdjustment(
  before: readonly DaySeconds[],
  after: readonly DaySeconds[],
  definition: Pick<ProfileDefinition, 'hours_format' | 'decimals'>,
): Record<string, number> | undefined {
  const shown = { ...definition, include_zero: true };
  const [was, now] = [wideRow(before, shown) ?? {}, wideRow(after, shown) ?? {}];
  const byCode: Record<string, number> = {};
  for (const code of [...CODES, ...Object.keys(was), ...Object.keys(now)]) byCode[code] = (now[code] ?? 0) - (was[code] ?? 0);
  return Object.values(byCode).some((units) => units !== 0) ? byCode : undefined;
}

/** A compiled profile: its header line and a writer of one employee's lines. */
export interface ProfileWriter {
  header: string;
  employeeLines(employee: EmployeeFields, status: string, days: readonly DaySeconds[]): string;
  /** The lines of an adjustment: what changed between two locks' days, hours signed. */
  adjustmentLines(employee: EmployeeFields, status: string, before: readonly DaySeconds[], after: readonly DaySeconds[]): string;
}

type Cell = (employee: EmployeeFields, status: string, row: Row) => string;

/** Compiles a definition once per export: each column becomes a function writing its cell. */
export function profileWriter(definition: ProfileDefinition, period: PeriodContext): ProfileWriter {
  const { delimiter } = definition;
  const textCell = (value: string | null) => csvCell(value ?? '', delimiter);
  const codeName = (code: string) => definition.codes[code] ?? code;
  const cells: Cell[] = definition.columns.map(({ value }) => cellOf(value));
  const eol = '\r\n';

  function cellOf(source: string): Cell {
    if (source.startsWith('constant:')) {
      const constant = textCell(definition.constants[source.slice('constant:'.length)] ?? '');
      return () => constant;
    }
    if (source.startsWith('hours:')) {
      const code = source.slice('hours:'.length);
      return (_e, _s, row) => formatUnits(row.byCode![code] ?? 0, definition);
    }
    switch (source) {
      case 'payroll_id':
        return (employee) => textCell(employee.payroll_id);
      case 'employee_id':
        return (employee) => textCell(employee.code);
      case 'id':
        return (employee) => String(employee.id);
      case 'first_name':
        return (employee) => textCell(employee.first_name);
      case 'last_name':
        return (employee) => textCell(employee.last_name);
      case 'full_name':
        return (employee) => textCell(`${employee.first_name} ${employee.last_name}`);
      case 'department':
        return (employee) => textCell(employee.department);
      case 'job_title':
        return (employee) => textCell(employee.job_title);
      case 'pay_grade':
        return (employee) => textCell(employee.pay_grade);
      case 'pay_group': {
        const group = textCell(period.group);
        return () => group;
      }
      case 'period_start':
        return () => period.start;
      case 'period_end':
        return () => period.end;
      case 'timesheet_status':
        return (_e, status) => status;
      case 'date':
        return (_e, _s, row) => row.date!;
      case 'code':
        return (_e, _s, row) => textCell(codeName(row.code!));
      case 'hours':
        return (_e, _s, row) => formatUnits(row.units!, definition);
      case 'total_hours':
        return (_e, _s, row) =>
          formatUnits(
            Object.values(row.byCode!).reduce((sum, units) => sum + units, 0),
            definition,
          );
      default:
        // definitionErrors refuses every other source before a profile is stored.
        throw new Error(`unknown column source ${source}`);
    }
  }

  const line = (employee: EmployeeFields, status: string, row: Row) => {
    let text = '';
    for (let index = 0; index < cells.length; index += 1) text += (index === 0 ? '' : delimiter) + cells[index]!(employee, status, row);
    return text + eol;
  };

  return {
    header: definition.columns.map((column) => textCell(column.header)).join(delimiter) + eol,
    employeeLines(employee, status, days) {
      if (definition.layout === 'wide') {
        const byCode = wideRow(days, definition);
        return byCode ? line(employee, status, { byCode }) : '';
      }
      let text = '';
      for (const row of longRows(days, definition)) text += line(employee, status, row);
      return text;
    },
    adjustmentLines(employee, status, before, after) {
      if (definition.layout === 'wide') {
        const byCode = wideAdjustment(before, after, definition);
        return byCode ? line(employee, status, { byCode }) : '';
      }
      let text = '';
      for (const row of adjustmentRows(before, after, definition)) text += line(employee, status, row);
      return text;
    },
  };
}
