import { addDays, daysBetween } from '../../src/pay-rules/periods';
import type { PayPeriodSettings } from '../../src/pay-rules/settings';
import { setClock } from '../helpers/attendance';
import { testDialects } from '../helpers/databases';
import { createUser, type TestUser } from '../helpers/factories';
import { publishedVectors, type Vector } from '../helpers/overtime-vectors';
import { eachAtOnce, type ReplayResponse, useReplayClient } from '../helpers/replay-client';
import { useFixture, useTestApp } from '../helpers/test-app';

// The published overtime vectors (docs/overtime-vectors.json) replayed through the API: the
// settings through PUT /pay-periods/settings, the employee through POST /employees, the records
// through POST /attendance (and punch-in for an open one), the answer from GET
// /employees/{id}/timesheets/{start}. The unit test holds the rules to the vectors; this one holds
// what a client reads, through every layer in between, on each database.

// The vectors with a pay group's rules (`group_rules`) are replayed under their own group by
// test/integration/pay-group-rules-api.test.ts: here every vector is of group 1.
const cases = publishedVectors().cases.filter((vector) => vector.group_rules === undefined);

/**
 * Why the API cannot hold a vector's records, if it cannot: it refuses a record whose out_time is
 * not after its in_time, and holds an open record as lasting until further notice (so nothing
 * may start after it).
 */
function refusalOf(vector: Vector): string | undefined {
  if (vector.records.some((record) => record.out_time_utc === record.in_time_utc)) return 'a zero-length record';
  const open = vector.records.filter((record) => record.out_time_utc === null);
  if (open.length > 1) return 'more than one open record';
  const latest = vector.records.reduce((last, record) => (record.in_time_utc > last ? record.in_time_utc : last), '');
  if (open[0] && open[0].in_time_utc !== latest) return 'a record after an open one';
  return undefined;
}

/** A fixed-length layout is set by its phase alone: anchors are the first of theirs from here. */
const FIRST_ANCHOR = '2020-01-06';

/**
 * Pay-period settings with a period starting on range.from: the range itself when a frequency
 * makes it, else a monthly period covering it (only the range's days are compared then: the days
 * after it cannot change them, and its totals are over more dates). Vectors of the same settings
 * share them, so the anchor of a fixed length is the first of its phase.
 */
function periodSettingsOf(vector: Vector): { settings: PayPeriodSettings; exact: boolean } {
  const { from, to } = vector.range;
  const base = { anchor_date: FIRST_ANCHOR, month_start_day: 1, workweek_start: vector.workweek_start, overtime: vector.rules };
  const length = daysBetween(from, to) + 1;
  const phased = (days: number) => addDays(FIRST_ANCHOR, ((daysBetween(FIRST_ANCHOR, from) % days) + days) % days);
  if (length === 7) return { settings: { ...base, frequency: 'weekly', anchor_date: phased(7) }, exact: true };
  if (length === 14) return { settings: { ...base, frequency: 'biweekly', anchor_date: phased(14) }, exact: true };
  const day = Number(from.slice(8, 10));
  const nextMonth = addDays(`${from.slice(0, 7)}-28`, 4).slice(0, 7);
  if ((day === 1 && to === `${from.slice(0, 7)}-15`) || (day === 16 && to === addDays(`${nextMonth}-01`, -1))) {
    return { settings: { ...base, frequency: 'semimonthly' }, exact: true };
  }
  if (day > 28) throw new Error(`no pay period starts on ${from}`);
  const monthlyEnd = addDays(`${nextMonth}-${from.slice(8, 10)}`, -1);
  if (to > monthlyEnd) throw new Error(`no pay period starting on ${from} covers ${to}`);
  return { settings: { ...base, frequency: 'monthly', month_start_day: day }, exact: to === monthlyEnd };
}

const instant = (stored: string) => `${stored.replace(' ', 'T')}Z`;
const hours = (value: number) => value.toFixed(2);

const replayed = cases.filter((vector) => refusalOf(vector) === undefined);
/** The vectors by their settings: each group's timesheets are read under its settings. */
const groups = new Map<string, Vector[]>();
for (const vector of replayed) {
  const key = JSON.stringify(periodSettingsOf(vector).settings);
  groups.set(key, [...(groups.get(key) ?? []), vector]);
}
/** Requests in flight at once: enough to keep MariaDB busy, few enough for SQLite's one writer. */
const AT_ONCE = 8;

describe.each(testDialects())('the published overtime vectors through the API on %s', (dialect) => {
  const t = useTestApp(dialect);
  const client = useReplayClient(t);
  // After every vector's records, so that none is refused as in the future; before the admin's token.
  beforeAll(() => setClock(t, '2027-06-01T00:00:00.000Z'));
  const admin = useFixture<TestUser>(() => createUser(t, 'admin'));
  /** Each vector's timesheet as GET answered it under its settings (or what went wrong). */
  const answers = new Map<string, ReplayResponse | Error>();

  /** Writes a vector's employee and records; returns the employee's id. */
  const write = async (vector: Vector, number: number): Promise<string> => {
    const as = client(admin);
    const timezone = vector.records[0]?.timezone ?? 'UTC';
    const employee = await as.post('/employees', { employee_id: `V-${number}`, first_name: 'Vector', last_name: String(number), timezone });
    if (employee.status !== 201) throw new Error(`POST /employees: ${employee.status} ${JSON.stringify(employee.body)}`);
    const records = [...vector.records].sort((a, b) => (a.in_time_utc < b.in_time_utc ? -1 : 1));
    for (const record of records) {
      const written =
        record.out_time_utc === null
          ? await as.post('/attendance/punch-in', { employee: employee.body.id, in_time: instant(record.in_time_utc) })
          : await as.post('/attendance', {
              employee: employee.body.id,
              in_time: instant(record.in_time_utc),
              out_time: instant(record.out_time_utc),
            });
      if (written.status !== 201) throw new Error(`writing ${JSON.stringify(record)}: ${written.status} ${JSON.stringify(written.body)}`);
    }
    return String(employee.body.id);
  };

  beforeAll(async () => {
    // Records are stored as sent whatever the pay-period settings (they only classify a read):
    // every vector is written in one stream, then each group's timesheets are read under its
    // settings, so the writes are never held back by a group of a few vectors.
    const employees = new Map<string, string>();
    await eachAtOnce(replayed, AT_ONCE, async (vector, index) => {
      try {
        employees.set(vector.name, await write(vector, index + 1));
      } catch (error) {
        answers.set(vector.name, error as Error);
      }
    });
    for (const [settings, vectors] of groups) {
      const put = await client(admin).put('/pay-periods/settings', JSON.parse(settings) as object);
      if (put.status !== 200) throw new Error(`PUT /pay-periods/settings: ${put.status} ${JSON.stringify(put.body)}`);
      const written = vectors.filter((vector) => employees.has(vector.name));
      await eachAtOnce(written, AT_ONCE, async (vector) => {
        const employee = employees.get(vector.name)!;
        const read = client(admin).get(`/employees/${employee}/timesheets/${vector.range.from}`);
        answers.set(vector.name, await read.catch((error: Error) => error));
      });
    }
  }, 600_000);

  it('replays all but the few vectors whose records the API refuses', () => {
    const refused = cases.filter((vector) => refusalOf(vector) !== undefined);
    expect(refused.length).toBeLessThanOrEqual(20);
    expect(replayed.length).toBeGreaterThanOrEqual(320);
  });

  it.each(replayed.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
    const res = answers.get(vector.name);
    if (res instanceof Error || res === undefined) throw res ?? new Error('not replayed');

    expect(res.status).toBe(200);
    const inRange = (res.body.days as Array<Record<string, number | string>>).filter((day) => String(day.date) <= vector.range.to);
    expect(inRange.map((day) => day.date)[0]).toBe(vector.range.from);
    expect(inRange.at(-1)?.date).toBe(vector.range.to);
    const shown = (day: Record<string, number | string>) => ({
      date: day.date,
      records: day.records,
      worked_hours: hours(Number(day.worked_hours)),
      regular_hours: hours(Number(day.regular_hours)),
      overtime_hours: hours(Number(day.overtime_hours)),
      double_time_hours: hours(Number(day.double_time_hours)),
    });
    expect(inRange.filter((day) => Number(day.records) > 0).map(shown)).toEqual(vector.expected.days);
    const idle = inRange.filter((day) => Number(day.records) === 0);
    expect(idle.every((day) => Number(day.worked_hours) + Number(day.regular_hours) + Number(day.overtime_hours) === 0)).toBe(true);
    expect(idle.every((day) => Number(day.double_time_hours) === 0)).toBe(true);
    expect(res.body.open_records).toBe(vector.expected.open_records);
    if (periodSettingsOf(vector).exact) {
      const { totals } = res.body as { totals: Record<string, number> };
      expect({
        worked_hours: hours(totals.worked_hours!),
        regular_hours: hours(totals.regular_hours!),
        overtime_hours: hours(totals.overtime_hours!),
        double_time_hours: hours(totals.double_time_hours!),
      }).toEqual(vector.expected.totals);
    }
  });
});
