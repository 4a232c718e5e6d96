import type { Db } from '../../src/db/connect';

// The lock race (docs/scaling.md, "Pay-period locks"): attendance writes into a pay period run
// while the period is locked. Every write must either commit before the lock, and so be in the
// numbers the lock froze, or be refused with 409 period_locked; none may commit after it.

export interface LockRaceOptions {
  /** API base URLs (origin and base path): writes go round-robin, the lock to `lockBase` (default the first). */
  bases: string[];
  lockBase?: string;
  /** An admin's bearer token. */
  token: string;
  /** Reads the outcome (on a cluster: a connection with causal reads). */
  db: Db;
  /** UTC employees with no attendance, one writer each. */
  employees: number[];
  /** A monthly period that has ended: October 2026. */
  period: { start: string; end: string };
  /** Writes per writer after its seed record (at most 29: one October day each). */
  steps: number;
  /** The lock is sent once this many race writes have answered. */
  lockAfter: number;
  /** A pause of each writer between its writes (default none: back to back). */
  pauseMs?: number;
}

export interface WriteResult {
  employee: number;
  step: number;
  op: 'create' | 'patch' | 'punch-in' | 'punch-out' | 'batch';
  status: number;
  code?: string;
  /** What the write set: a new record's in_time, a patched out_time. */
  value: string;
}

export interface LockRaceOutcome {
  lockStatus: number;
  /** Lock requests sent (a 503 after its retries is sent again). */
  lockAttempts: number;
  /** The race writes (seed and after-lock writes excluded). */
  results: WriteResult[];
  committed: number;
  refused: number;
  /** Race writes that committed after the lock request was sent (still before its commit). */
  committedWhileLocking: number;
  /** Everything that broke the rule; empty when the race held. */
  violations: string[];
}

const pad = (n: number) => String(n).padStart(2, '0');

async function call(base: string, token: string, method: string, path: string, body?: object): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  try {
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

const seconds = (sql: string) => Date.parse(`${String(sql).slice(0, 19).replace(' ', 'T')}Z`) / 1000;

/** An answer as a race write records it: its status, and its problem's code. */
const outcome = (res: { status: number; body: any }) => ({
  status: res.status,
  ...(res.status >= 400 ? { code: String(res.body?.code) } : {}),
});

/**
 * The lock of a race: sent to `lockPath` once `lockAfter` race writes have answered (or when
 * `release` is called), again after a 503, at most 20 times; every answer but 200 is a violation.
 * `record` keeps each race write's result and notes those sent after the lock was.
 */
function raceLock(options: Pick<LockRaceOptions, 'bases' | 'lockBase' | 'token' | 'lockAfter'>, lockPath: string, violations: string[]) {
  const results: WriteResult[] = [];
  const sentAfterLock = new Set<WriteResult>();
  let answered = 0;
  let sentAt: number | undefined;
  const state = { status: 0, attempts: 0 };
  let release!: () => void;
  const due = new Promise<void>((resolve) => (release = resolve));
  const done = (async () => {
    await due;
    sentAt = Date.now();
    for (;;) {
      state.attempts++;
      const res = await call(options.lockBase ?? (options.bases[0] as string), options.token, 'POST', lockPath);
      state.status = res.status;
      if (res.status !== 503 || state.attempts >= 20) {
        if (res.status !== 200) violations.push(`the lock answered ${res.status} ${JSON.stringify(res.body)}`);
        return;
      }
    }
  })();
  const record = (result: WriteResult, writeSentAt: number) => {
    results.push(result);
    if (sentAt !== undefined && writeSentAt >= sentAt) sentAfterLock.add(result);
    if (++answered >= options.lockAfter) release();
  };
  /** Once every writer is done: the lock's answer, and the race's figures. */
  const finish = async () => {
    release();
    await done;
    return state;
  };
  const summary = (): Omit<LockRaceOutcome, 'violations'> => ({
    lockStatus: state.status,
    lockAttempts: state.attempts,
    results,
    committed: results.filter((result) => result.status < 300).length,
    refused: results.filter((result) => result.code === 'period_locked').length,
    committedWhileLocking: [...sentAfterLock].filter((result) => result.status < 300).length,
  });
  return { results, record, finish, summary };
}

/** Per writer, nothing commits after its first period_locked. */
function checkNothingAfterRefusal(results: WriteResult[], employees: number[], violations: string[]): void {
  for (const employee of employees) {
    const own = results.filter((result) => result.employee === employee);
    const firstRefused = own.findIndex((result) => result.code === 'period_locked');
    if (firstRefused === -1) continue;
    for (const later of own.slice(firstRefused + 1)) {
      if (later.status < 300) violations.push(`employee ${employee}: ${later.op} of step ${later.step} committed after a period_locked`);
    }
  }
}

/**
 * Runs the race: a seed record per employee (before the lock: must commit), then one writer per
 * employee doing `steps` writes into the period (POST /attendance, PATCH of the seed record's
 * out_time, back-dated punch-in then punch-out, a terminal batch of an in and an out), the lock
 * sent while they run, then one more write
 * per employee (after the lock: must be refused). Checks:
 * - every race write answers 2xx or 409 period_locked; per writer, no 2xx after a period_locked;
 * - the lock's snapshot (pay_period_snapshots) equals what the database holds for the period now:
 *   whatever committed is in it, and nothing committed after it;
 * - each committed write is in the database, each refused one is not.
 */
export async function runLockRace(options: LockRaceOptions): Promise<LockRaceOutcome> {
  const { bases, token, db, employees, period } = options;
  const month = period.start.slice(0, 7);
  const violations: string[] = [];
  let turn = 0;
  const base = () => bases[turn++ % bases.length] as string;

  // Seeds: one closed record per employee on the 1st, 08:00-09:00, through the API.
  const seeds = new Map<number, string>();
  for (const employee of employees) {
    const res = await call(base(), token, 'POST', '/attendance', {
      employee: String(employee),
      in_time: `${month}-01 08:00:00`,
      out_time: `${month}-01 09:00:00`,
    });
    if (res.status !== 201) throw new Error(`seed record of employee ${employee}: ${res.status} ${JSON.stringify(res.body)}`);
    seeds.set(employee, String(res.body.id));
  }

  // A punch-in that committed first and a punch-out refused by the lock leave an open record:
  // the lock passes it over as a missed punch-out rather than refusing (409 open_records).
  const race = raceLock(options, `/pay-periods/${period.start}/lock?allow_open_records=true`, violations);
  const { results, record } = race;

  const writer = async (employee: number) => {
    for (let step = 0; step < options.steps; step++) {
      if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
      const day = `${month}-${pad(2 + step)}`;
      const sentAt = Date.now();
      const kind = step % 4;
      if (kind === 0) {
        const value = `${day} 10:00:00`;
        const res = await call(base(), token, 'POST', '/attendance', {
          employee: String(employee),
          in_time: value,
          out_time: `${day} 11:00:00`,
        });
        record({ employee, step, op: 'create', value, ...outcome(res) }, sentAt);
      } else if (kind === 1) {
        const value = `${month}-01 09:${pad(step)}:30`;
        const res = await call(base(), token, 'PATCH', `/attendance/${seeds.get(employee)}`, { out_time: value });
        record({ employee, step, op: 'patch', value, ...outcome(res) }, sentAt);
      } else if (kind === 3) {
        // A terminal batch (an admin's back-fill): both entries created, or refused.
        const value = `${day} 16:00:00`;
        const res = await call(base(), token, 'POST', '/attendance/punch-logs', {
          entries: [
            { log_id: `${employee}-${step}-in`, employee: String(employee), time: `${day}T16:00:00Z`, direction: 'in' },
            { log_id: `${employee}-${step}-out`, employee: String(employee), time: `${day}T17:00:00Z`, direction: 'out' },
          ],
        });
        const entries = (res.body?.results ?? []) as Array<{ result: string; code?: string }>;
        // Nothing created: refused for the period, or for another rule (an `in` meeting the record a
        // refused punch-out left open: already_punched_in), which is no commit either.
        const created = entries.filter((entry) => entry.result === 'created').length;
        const answer =
          created === 2
            ? { status: 201 }
            : created === 0
              ? { status: 409, code: entries.some((entry) => entry.code === 'period_locked') ? 'period_locked' : 'nothing_applied' }
              : { status: 500, code: `batch ${JSON.stringify(entries)}` };
        record({ employee, step, op: 'batch', value, ...answer }, sentAt);
      } else {
        const value = `${day} 14:00:00`;
        const res = await call(base(), token, 'POST', '/attendance/punch-in', { employee: String(employee), in_time: value });
        record({ employee, step, op: 'punch-in', value, ...outcome(res) }, sentAt);
        if (res.status !== 201) continue;
        const outSentAt = Date.now();
        const out = await call(base(), token, 'POST', '/attendance/punch-out', { employee: String(employee), out_time: `${day} 15:00:00` });
        record({ employee, step, op: 'punch-out', value, ...outcome(out) }, outSentAt);
      }
    }
  };
  await Promise.all(employees.map((employee) => writer(employee)));
  const { status: lockStatus } = await race.finish();

  // After the lock answered: one more write per employee, refused.
  for (const employee of employees) {
    const value = `${period.end} 20:00:00`;
    const res = await call(base(), token, 'POST', '/attendance', {
      employee: String(employee),
      in_time: value,
      out_time: `${period.end} 21:00:00`,
    });
    if (lockStatus === 200 && !(res.status === 409 && res.body?.code === 'period_locked'))
      violations.push(`employee ${employee}: a write after the lock answered ${res.status} ${String(res.body?.code)}`);
  }

  // 1. Answers, and their order per writer. A punch-out whose punch-in committed before the lock
  // meets no open record: the lock made that record a missed punch-out (docs/pay-periods.md,
  // "Period end, step by step"), and the punch-out is refused as not_punched_in, writing nothing.
  const missedRows = (await db('attendance')
    .whereIn('employee_id', employees)
    .where('missed_punch_out', true)
    .select('employee_id', 'in_time_local')) as Array<{ employee_id: number; in_time_local: string }>;
  const missed = new Set(missedRows.map((row) => `${Number(row.employee_id)} ${String(row.in_time_local).slice(0, 19)}`));
  const outOfMissed = (result: WriteResult) =>
    lockStatus === 200 && result.op === 'punch-out' && result.code === 'not_punched_in' && missed.has(`${result.employee} ${result.value}`);
  for (const result of results) {
    const fine =
      result.status === 200 ||
      result.status === 201 ||
      (result.status === 409 &&
        (result.code === 'period_locked' || (result.op === 'batch' && result.code === 'nothing_applied') || outOfMissed(result)));
    if (!fine) violations.push(`employee ${result.employee} step ${result.step} ${result.op}: ${result.status} ${result.code ?? ''}`);
  }
  checkNothingAfterRefusal(results, employees, violations);

  // 2. The lock's numbers equal the period as the database holds it now.
  if (lockStatus === 200) {
    const snapshots = (await db('pay_period_snapshots')
      .where('period_start', period.start)
      .whereIn('employee_id', employees)
      .select('employee_id', 'days', 'open_records')) as Array<{ employee_id: number; days: string; open_records: number }>;
    const rows = (await db('attendance')
      .whereIn('employee_id', employees)
      .where('in_time_local', '>=', `${period.start} 00:00:00`)
      .where('in_time_local', '<=', `${period.end} 23:59:59`)
      .select('employee_id', 'in_time_local', 'in_time_utc', 'out_time_utc')) as Array<Record<string, string | number | null>>;
    for (const employee of employees) {
      const snapshot = snapshots.find((row) => Number(row.employee_id) === employee);
      if (!snapshot) {
        violations.push(`employee ${employee}: no snapshot`);
        continue;
      }
      const frozen = (JSON.parse(snapshot.days) as Array<[string, number, number, number, number, number]>).map((day) => [
        day[0],
        day[1],
        day[5],
      ]);
      const byDate = new Map<string, [string, number, number]>();
      let open = 0;
      for (const row of rows.filter((r) => Number(r.employee_id) === employee)) {
        if (row.out_time_utc === null) {
          open++;
          continue;
        }
        const date = String(row.in_time_local).slice(0, 10);
        const day = byDate.get(date) ?? [date, 0, 0];
        day[1] += seconds(String(row.out_time_utc)) - seconds(String(row.in_time_utc));
        day[2] += 1;
        byDate.set(date, day);
      }
      const live = [...byDate.values()].sort((a, b) => a[0].localeCompare(b[0]));
      if (JSON.stringify(live) !== JSON.stringify(frozen) || Number(snapshot.open_records) !== open) {
        violations.push(
          `employee ${employee}: the lock froze ${JSON.stringify(frozen)} (${snapshot.open_records} open), the database holds ${JSON.stringify(live)} (${open} open)`,
        );
      }
    }
  }

  // 3. Each write is in the database exactly when it committed.
  const records = (await db('attendance')
    .whereIn('employee_id', employees)
    .select('id', 'employee_id', 'in_time_local', 'out_time_local')) as Array<Record<string, string | number | null>>;
  for (const employee of employees) {
    const own = records.filter((row) => Number(row.employee_id) === employee);
    const starts = new Set(own.map((row) => String(row.in_time_local).slice(0, 19)));
    for (const result of results.filter((r) => r.employee === employee && ['create', 'punch-in', 'batch'].includes(r.op))) {
      if (starts.has(result.value) !== result.status < 300)
        violations.push(
          `employee ${employee}: ${result.op} ${result.value} answered ${result.status} but is ${starts.has(result.value) ? '' : 'not '}stored`,
        );
    }
    const lastPatch = results.filter((r) => r.employee === employee && r.op === 'patch' && r.status < 300).pop();
    const seed = own.find((row) => String(row.id) === seeds.get(employee));
    const expected = lastPatch?.value ?? `${month}-01 09:00:00`;
    if (String(seed?.out_time_local).slice(0, 19) !== expected)
      violations.push(
        `employee ${employee}: the seed record ends at ${String(seed?.out_time_local)}, the last committed patch set ${expected}`,
      );
  }

  return { ...race.summary(), violations };
}

/** The workweek race's period, and the week that begins before it: Monday 29 June to Sunday 5 July. */
const JULY = { start: '2026-07-01', end: '2026-07-31' };

export type WorkweekRaceOptions = Omit<LockRaceOptions, 'period' | 'pauseMs'>;

/**
 * The lock race through a workweek (CONTRACT §6.5, "Frozen means frozen"): each employee has 40
 * hours on 1 to 4 July (Wednesday to Saturday, all regular under the default weekly rule), and
 * writers add or lengthen records on 29 and 30 June, in the open June period, while July is
 * locked. Every June hour that commits turns a July hour into overtime, so each June write must
 * either commit before the lock, and be in the overtime the lock froze, or be refused with 409
 * period_locked naming July. Checks:
 * - every race write answers 2xx or 409 period_locked; per writer, no 2xx after a period_locked;
 *   a June write after the lock is refused, its detail naming the period;
 * - each create is stored exactly when it committed, and the June seed ends where the last
 *   committed patch put it;
 * - July's frozen timesheet has as many overtime hours as the June records now in the database
 *   hold, and the rest of its 40 hours regular.
 */
export async function runWorkweekLockRace(options: WorkweekRaceOptions): Promise<LockRaceOutcome> {
  const { bases, token, db, employees } = options;
  const violations: string[] = [];
  let turn = 0;
  const base = () => bases[turn++ % bases.length] as string;
  const seed = async (employee: number, inTime: string, outTime: string) => {
    const res = await call(base(), token, 'POST', '/attendance', { employee: String(employee), in_time: inTime, out_time: outTime });
    if (res.status !== 201) throw new Error(`seed record of employee ${employee}: ${res.status} ${JSON.stringify(res.body)}`);
    return String(res.body.id);
  };
  const juneSeeds = new Map<number, string>();
  for (const employee of employees) {
    for (const day of ['01', '02', '03', '04']) await seed(employee, `2026-07-${day} 08:00:00`, `2026-07-${day} 18:00:00`);
    juneSeeds.set(employee, await seed(employee, '2026-06-30 08:00:00', '2026-06-30 09:00:00'));
  }

  const race = raceLock(options, `/pay-periods/${JULY.start}/lock`, violations);
  const { results } = race;
  const writer = async (employee: number) => {
    for (let step = 0; step < options.steps; step++) {
      const sentAt = Date.now();
      let result: WriteResult;
      if (step % 2 === 0) {
        // Half an hour on Monday 29 June, one slot per step.
        const minutes = step * 30;
        const value = `2026-06-29 ${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}:00`;
        const end = minutes + 30;
        const res = await call(base(), token, 'POST', '/attendance', {
          employee: String(employee),
          in_time: value,
          out_time: `2026-06-29 ${pad(Math.floor(end / 60))}:${pad(end % 60)}:00`,
        });
        result = { employee, step, op: 'create', value, ...outcome(res) };
      } else {
        const value = `2026-06-30 09:${pad(step)}:30`;
        const res = await call(base(), token, 'PATCH', `/attendance/${juneSeeds.get(employee)}`, { out_time: value });
        result = { employee, step, op: 'patch', value, ...outcome(res) };
      }
      race.record(result, sentAt);
    }
  };
  await Promise.all(employees.map((employee) => writer(employee)));
  const { status: lockStatus } = await race.finish();

  // After the lock answered: one more June record per employee, refused, naming July.
  for (const employee of employees) {
    const res = await call(base(), token, 'POST', '/attendance', {
      employee: String(employee),
      in_time: '2026-06-29 23:00:00',
      out_time: '2026-06-29 23:30:00',
    });
    if (lockStatus === 200 && !(res.status === 409 && res.body?.code === 'period_locked' && String(res.body?.detail).includes(JULY.start)))
      violations.push(`employee ${employee}: a June write after the lock answered ${res.status} ${JSON.stringify(res.body)}`);
  }

  // 1. Answers, and their order per writer.
  for (const result of results) {
    const fine = result.status === 200 || result.status === 201 || (result.status === 409 && result.code === 'period_locked');
    if (!fine) violations.push(`employee ${result.employee} step ${result.step} ${result.op}: ${result.status} ${result.code ?? ''}`);
  }
  checkNothingAfterRefusal(results, employees, violations);

  // 2. Each write is in the database exactly when it committed.
  const june = (await db('attendance')
    .whereIn('employee_id', employees)
    .where('in_time_local', '<', `${JULY.start} 00:00:00`)
    .select('id', 'employee_id', 'in_time_local', 'out_time_local', 'in_time_utc', 'out_time_utc')) as Array<
    Record<string, string | number | null>
  >;
  for (const employee of employees) {
    const own = june.filter((row) => Number(row.employee_id) === employee);
    const starts = new Set(own.map((row) => String(row.in_time_local).slice(0, 19)));
    for (const result of results.filter((r) => r.employee === employee && r.op === 'create')) {
      if (starts.has(result.value) !== result.status < 300)
        violations.push(
          `employee ${employee}: create ${result.value} answered ${result.status} but is ${starts.has(result.value) ? '' : 'not '}stored`,
        );
    }
    const lastPatch = results.filter((r) => r.employee === employee && r.op === 'patch' && r.status < 300).pop();
    const juneSeed = own.find((row) => String(row.id) === juneSeeds.get(employee));
    const expected = lastPatch?.value ?? '2026-06-30 09:00:00';
    if (String(juneSeed?.out_time_local).slice(0, 19) !== expected)
      violations.push(
        `employee ${employee}: the June seed ends at ${String(juneSeed?.out_time_local)}, the last committed patch set ${expected}`,
      );
  }

  // 3. The frozen July numbers hold every June hour that committed, and no other.
  if (lockStatus === 200) {
    for (const employee of employees) {
      const juneSeconds = june
        .filter((row) => Number(row.employee_id) === employee)
        .reduce((sum, row) => sum + seconds(String(row.out_time_utc)) - seconds(String(row.in_time_utc)), 0);
      const sheet = await call(bases[0] as string, token, 'GET', `/employees/${employee}/timesheets/${JULY.start}`);
      const totals = sheet.body?.totals as { regular_hours: number; overtime_hours: number } | undefined;
      const overtime = Math.round((juneSeconds / 3600) * 100) / 100;
      const regular = Math.round(((40 * 3600 - juneSeconds) / 3600) * 100) / 100;
      if (sheet.status !== 200 || totals?.overtime_hours !== overtime || totals?.regular_hours !== regular)
        violations.push(
          `employee ${employee}: July froze ${JSON.stringify(totals ?? sheet.body)}, the June records now hold ${juneSeconds} s (${overtime} h of overtime, ${regular} h regular)`,
        );
    }
  }

  return { ...race.summary(), violations };
}
