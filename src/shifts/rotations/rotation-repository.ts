import type { Knex } from 'knex';
import type { Caller } from '../../caller';
import type { Db } from '../../db/connect';
import { toSqlDateTime } from '../../db/sql-time';
import type { Rotation, RotationValues } from './rotation-model';

// rotations and rotation_days (migration 0032).

const SELECTED = ['r.*', 'e.first_name', 'e.last_name', 'e.supervisor_id'];

function toRotation(row: Record<string, unknown>): Rotation {
  return {
    id: Number(row.id),
    employee_id: Number(row.employee_id),
    employee_display: `${String(row.first_name)} ${String(row.last_name)}`,
    supervisor_id: row.supervisor_id == null ? null : Number(row.supervisor_id),
    anchor_date: String(row.anchor_date).slice(0, 10),
    cycle: JSON.parse(String(row.cycle)) as Array<number | null>,
    valid_from: String(row.valid_from).slice(0, 10),
    valid_to: row.valid_to == null ? null : String(row.valid_to).slice(0, 10),
    publish: row.publish === true || Number(row.publish) === 1,
  };
}

const rotations = (db: Db) => db('rotations as r').join('employees as e', 'e.id', 'r.employee_id');

export async function findRotation(db: Db, id: number): Promise<Rotation | undefined> {
  const row = (await rotations(db).where('r.id', id).first(SELECTED)) as Record<string, unknown> | undefined;
  return row && toRotation(row);
}

export async function listAllRotationIds(db: Db): Promise<Array<{ id: number; employee_id: number }>> {
  const rows = (await db('rotations').orderBy('id').select('id', 'employee_id')) as Array<Record<string, unknown>>;
  return rows.map((row) => ({ id: Number(row.id), employee_id: Number(row.employee_id) }));
}

/** The rotations the caller may read (admins all, managers their direct reports'), by id. */
export async function listRotations(
  db: Db,
  caller: Caller,
  page: { offset: number; limit: number },
): Promise<{ rows: Rotation[]; total: number }> {
  const visible = (query: Knex.QueryBuilder) => (caller.role === 'admin' ? query : query.where('e.supervisor_id', caller.employeeId ?? 0));
  const [rows, counted] = await Promise.all([
    visible(rotations(db)).orderBy('r.id').offset(page.offset).limit(page.limit).select(SELECTED) as Promise<
      Array<Record<string, unknown>>
    >,
    visible(rotations(db)).count({ n: '*' }).first() as Promise<{ n: number | string } | undefined>,
  ]);
  return { rows: rows.map(toRotation), total: Number(counted?.n ?? 0) };
}

function columnsOf(values: RotationValues) {
  return {
    employee_id: values.employee,
    anchor_date: values.anchor_date,
    cycle: JSON.stringify(values.cycle),
    valid_from: values.valid_from,
    valid_to: values.valid_to,
    publish: values.publish,
  };
}

export async function insertRotation(db: Db, values: RotationValues, now: Date): Promise<number> {
  const at = toSqlDateTime(now);
  const [id] = await db('rotations').insert({ ...columnsOf(values), created_at: at, updated_at: at });
  return Number(id);
}

export async function updateRotation(db: Db, id: number, values: RotationValues, now: Date): Promise<void> {
  await db('rotations')
    .where({ id })
    .update({ ...columnsOf(values), updated_at: toSqlDateTime(now) });
}

export async function deleteRotation(db: Db, id: number): Promise<void> {
  await db('rotations').where({ id }).delete();
}

/** The dates of from..to the generation has handled for the rotation. */
export async function handledDates(db: Db, rotationId: number, from: string, to: string): Promise<Set<string>> {
  const rows = (await db('rotation_days').where('rotation_id', rotationId).whereBetween('date', [from, to]).select('date')) as Array<{
    date: unknown;
  }>;
  return new Set(rows.map((row) => String(row.date).slice(0, 10)));
}

export async function markHandled(db: Db, rotationId: number, date: string): Promise<void> {
  await db('rotation_days').insert({ rotation_id: rotationId, date });
}

export async function forgetHandled(db: Db, rotationId: number, dates: readonly string[]): Promise<void> {
  if (dates.length > 0) await db('rotation_days').where('rotation_id', rotationId).whereIn('date', dates).delete();
}
