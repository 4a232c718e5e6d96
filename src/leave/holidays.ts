import Holidays from 'date-holidays';
import type { Knex } from 'knex';
import { writeAudit } from '../audit/repository';
import { NotFoundError, ValidationError } from '../errors';
import { parseBody } from '../http/parse';
import { deleteHoliday, findHoliday, type Holiday, type HolidayColumns, insertHoliday, insertMissingHolidays } from './holidays-repository';
import type { WriteContext } from './leave-types';
import { holidayCreate, holidayImport } from './schemas';
import { addDays } from '../time';
import type { ApprovalScope } from '../period-guard/reopen';
import { reopenWhereLeaveHoursMove } from './reopen';

// The writes of /holidays (admins; the route checks the role). Imports copy public holidays from
// the date-holidays package into rows: later releases of the package never change a stored row
// (docs/leave.md, "Holidays"; its data licence: docs/decisions.md, "Holiday data"). Each write
// reopens the approved timesheets of open periods whose holiday hours it moves (holidays_changed).

/**
 * The approved timesheets a holiday of from..to may move (reopenWhereLeaveHoursMove): those of its
 * country's employees, everyone's for a holiday of everyone (country null).
 */
function holidayScope(from: string, to: string, country: string | null): ApprovalScope {
  return country === null ? { from, to } : { from, to, country };
}

export async function createHoliday(trx: Knex.Transaction, body: unknown, context: WriteContext): Promise<Holiday> {
  const values = parseBody(holidayCreate, body);
  const columns: HolidayColumns = {
    date: values.date,
    name: values.name,
    portion: values.portion ?? 'full',
    country: values.country ?? null,
    paid: values.paid ?? true,
  };
  const id = await reopenWhereLeaveHoursMove(
    trx,
    holidayScope(columns.date, columns.date, columns.country),
    context,
    'holidays_changed',
    () => insertHoliday(trx, columns, context.now),
  );
  await writeAudit(trx, { action: 'create', entityType: 'holiday', entityId: id, fields: Object.keys(columns) }, context);
  return { id, ...columns };
}

export async function removeHoliday(trx: Knex.Transaction, id: number, context: WriteContext): Promise<{ id: string }> {
  const holiday = await findHoliday(trx, id);
  if (!holiday) throw new NotFoundError({ detail: 'No such holiday' });
  await reopenWhereLeaveHoursMove(trx, holidayScope(holiday.date, holiday.date, holiday.country), context, 'holidays_changed', () =>
    deleteHoliday(trx, id),
  );
  await writeAudit(trx, { action: 'delete', entityType: 'holiday', entityId: id, fields: [] }, context);
  return { id: String(id) };
}

/**
 * The public holidays of a country (and region) in a year, as the installed date-holidays
 * release computes them, in English where it has the name. Bank holidays, observances, school
 * and optional days are left out; a holiday of several days (Korean New Year, Eid al-Fitr in many
 * countries) is a row on each of its dates, all with its name.
 */
export function publicHolidaysOf(country: string, region: string | undefined, year: number): HolidayColumns[] {
  const library = new Holidays();
  const errors = [];
  if (!library.getCountries()[country]) errors.push({ field: 'country', message: 'must be a country the holiday library knows' });
  else if (region !== undefined && !Object.hasOwn(library.getStates(country) ?? {}, region.toUpperCase()))
    errors.push({ field: 'region', message: `must be a region of ${country} the holiday library knows` });
  if (errors.length > 0) throw new ValidationError(errors);
  const calendar = region === undefined ? new Holidays(country) : new Holidays(country, region.toUpperCase());
  const rows = new Map<string, HolidayColumns>();
  for (const holiday of calendar.getHolidays(year, 'en')) {
    if (holiday.type !== 'public') continue;
    const name = holiday.name.slice(0, 150);
    for (const date of datesOfHoliday(holiday)) rows.set(`${date} ${name}`, { date, name, portion: 'full', country, paid: true });
  }
  return [...rows.values()];
}

/** Milliseconds of a day: a holiday's length in whole days, rounded (a daylight-saving change makes one 23 or 25 hours). */
const DAY_MS = 86_400_000;

/**
 * The local dates a library holiday covers: its `date` (the local date it begins on) and the days
 * after it while it lasts. Its `start` and `end` are instants, so a holiday beginning at the
 * evening before (Eid) still counts from its `date`.
 */
function datesOfHoliday(holiday: { date: string; start: Date; end: Date }): string[] {
  const first = holiday.date.slice(0, 10);
  const days = Math.max(1, Math.round((holiday.end.getTime() - holiday.start.getTime()) / DAY_MS));
  return Array.from({ length: days }, (_day, index) => addDays(first, index));
}

/** POST /holidays/import: the rows not stored yet; a second import of the same adds nothing. */
export async function importHolidays(
  trx: Knex.Transaction,
  body: unknown,
  context: WriteContext,
): Promise<{ imported: number; skipped: number }> {
  const values = parseBody(holidayImport, body);
  const rows = publicHolidaysOf(values.country, values.region, values.year);
  const dates = rows.map((row) => row.date).sort();
  const imported =
    rows.length === 0
      ? 0
      : await reopenWhereLeaveHoursMove(
          trx,
          holidayScope(dates[0]!, dates[dates.length - 1]!, values.country),
          context,
          'holidays_changed',
          () => insertMissingHolidays(trx, rows, context.now),
        );
  if (imported > 0)
    await writeAudit(
      trx,
      { action: 'import', entityType: 'holiday', entityId: 0, fields: ['country', ...(values.region ? ['region'] : []), 'year'] },
      context,
    );
  return { imported, skipped: rows.length - imported };
}
