import { fingerprintOf, type LedgerKind, type LedgerRow, readLedger, writeLedger } from './ledger';
import { type ImportContext, looseName, quoted, textOrNull } from './report';
import type { SourceRow } from './icehrm-source';

/** One IceHrm reference table and the table it becomes here. */
interface ReferenceSpec {
  kind: LedgerKind;
  table: string;
  /** Singular, for report lines: "job title 3". */
  noun: string;
  /**
   * Names are unique here (any case). A second IceHrm row of a name is left out, or (departments,
   * which employees must keep) renamed "<name> (<id>)" as migration 0013 renamed them.
   */
  duplicateNames: 'reject' | 'rename';
  /** The row's columns here, or why it cannot be imported. */
  columns(row: SourceRow, notes: string[]): Record<string, unknown> | { reject: string };
}

/** Text cut to what the column holds; the cut is noted. */
function fitted(value: unknown, max: number, what: string, notes: string[]): string | null {
  const text = textOrNull(value);
  if (text === null || text.length <= max) return text?.trim() ?? null;
  notes.push(`${what} was ${text.length} characters long: cut to ${max}`);
  return text.slice(0, max).trim();
}

function named(row: SourceRow, column: string): string | { reject: string } {
  const name = textOrNull(row[column])?.trim();
  if (!name) return { reject: 'has no name' };
  if (name.length > 100) return { reject: `name ${quoted(name)} is longer than 100 characters` };
  return name;
}

const money = (value: unknown) => (value === null || value === undefined || value === '' ? null : Number(value));

export const EMPLOYMENT_STATUSES: ReferenceSpec = {
  kind: 'employment_status',
  table: 'employment_statuses',
  noun: 'employment status',
  duplicateNames: 'reject',
  columns: (row, notes) => {
    const name = named(row, 'name');
    return typeof name === 'string' ? { name, description: fitted(row.description, 500, 'description', notes) } : name;
  },
};

export const JOB_TITLES: ReferenceSpec = {
  kind: 'job_title',
  table: 'job_titles',
  noun: 'job title',
  duplicateNames: 'reject',
  columns: (row, notes) => {
    const name = named(row, 'name');
    if (typeof name !== 'string') return name;
    return { code: fitted(row.code, 50, 'code', notes), name, description: fitted(row.description, 500, 'description', notes) };
  },
};

export const PAY_GRADES: ReferenceSpec = {
  kind: 'pay_grade',
  table: 'pay_grades',
  noun: 'pay grade',
  duplicateNames: 'reject',
  columns: (row) => {
    const name = named(row, 'name');
    if (typeof name !== 'string') return name;
    const currency = textOrNull(row.currency)?.trim().toUpperCase() ?? null;
    if (currency !== null && !/^[A-Z]{3}$/.test(currency)) return { reject: `currency ${quoted(currency)} is not a 3-letter code` };
    return { name, currency, min_salary: money(row.min_salary), max_salary: money(row.max_salary) };
  },
};

/** IceHrm's company structure (company, offices, departments, units) becomes departments, nested as there. */
export const DEPARTMENTS: ReferenceSpec = {
  kind: 'department',
  table: 'departments',
  noun: 'department',
  duplicateNames: 'rename',
  columns: (row, notes) => {
    const title = textOrNull(row.title)?.trim();
    if (!title) return { reject: 'has no title' };
    return {
      name: fitted(title, 100, 'title', notes),
      description: fitted(row.description, 500, 'description', notes),
      parent_id: row.parent === null || row.parent === undefined || Number(row.parent) === 0 ? null : Number(row.parent),
    };
  },
};

/**
 * Copies one reference table, ids kept, and returns the ids employees may point at. A row the
 * ledger knows is rewritten only when IceHrm's changed. A row this server already has under the
 * same id is taken over when it has the same name (a fresh install's employment statuses are
 * IceHrm's), renamed when the database holds no other employees (its rows are the install's
 * own), and otherwise left alone and the IceHrm row reported (--merge). Departments go parents
 * first; a parent that is missing or left out leaves the department at the top, noted.
 */
export async function importReferenceTable(context: ImportContext, spec: ReferenceSpec, sourceRows: SourceRow[]): Promise<Set<number>> {
  const { db, report } = context;
  const counts = report.counts(spec.table);
  const ledger = await readLedger(db, spec.kind);
  const existing = new Map(((await db(spec.table).select('*')) as Array<Record<string, unknown>>).map((row) => [Number(row.id), row]));
  const namesInUse = new Map<string, number>();
  for (const [id, row] of existing) namesInUse.set(looseName(row.name), id);

  type Planned = { id: number; columns: Record<string, unknown>; action: 'add' | 'update' | 'keep'; fingerprint: string };
  const planned = new Map<number, Planned>();
  for (const row of sourceRows) {
    counts.read++;
    const id = Number(row.id);
    const what = `${spec.noun} ${id}`;
    const notes: string[] = [];
    const columns = spec.columns(row, notes);
    if ('reject' in columns) {
      report.reject(spec.table, `${what}: ${String(columns.reject)}`);
      continue;
    }
    const here = existing.get(id);
    const ours = ledger.get(id);
    if (here && !ours && looseName(here.name) !== looseName(columns.name)) {
      if (context.merge) {
        report.reject(
          spec.table,
          `${what}: id ${id} is ${quoted(here.name)} here, not ${quoted(columns.name)}; imported employees get no ${spec.noun} for it`,
        );
        continue;
      }
      report.notes.push(`${what}: ${quoted(here.name)} here is renamed to IceHrm's ${quoted(columns.name)}`);
    }
    const holder = namesInUse.get(looseName(columns.name));
    if (holder !== undefined && holder !== id) {
      if (spec.duplicateNames === 'reject') {
        report.reject(spec.table, `${what}: the name ${quoted(columns.name)} is already ${spec.noun} ${holder}`);
        continue;
      }
      const name = String(columns.name);
      columns.name = `${name.slice(0, 100 - ` (${id})`.length)} (${id})`;
      notes.push(`the name ${quoted(name)} is already ${spec.noun} ${holder}'s: imported as ${quoted(columns.name)}`);
    }
    if (here && namesInUse.get(looseName(here.name)) === id) namesInUse.delete(looseName(here.name));
    namesInUse.set(looseName(columns.name), id);
    for (const note of notes) report.notes.push(`${what}: ${note}`);
    const fingerprint = fingerprintOf(columns);
    const action = !here ? 'add' : ours?.fingerprint === fingerprint || (!ours && sameColumns(here, columns)) ? 'keep' : 'update';
    planned.set(id, { id, columns, action, fingerprint });
  }

  const order = spec.table === 'departments' ? parentsFirst(planned, existing, spec, context) : [...planned.values()];
  const ledgerRows: LedgerRow[] = [];
  for (const row of order) {
    if (row.action === 'add') counts.added++;
    else if (row.action === 'update') counts.updated++;
    else counts.unchanged++;
    if (row.action !== 'keep' || ledger.get(row.id)?.fingerprint !== row.fingerprint) {
      ledgerRows.push({ kind: spec.kind, sourceId: row.id, targetId: row.id, fingerprint: row.fingerprint });
    }
  }
  if (!context.dryRun && ledgerRows.length > 0) {
    await db.transaction(async (trx) => {
      // Parents before children: one insert per row keeps the order (reference tables are small).
      for (const row of order) {
        if (row.action === 'add') await trx(spec.table).insert({ id: row.id, ...row.columns });
        else if (row.action === 'update') await trx(spec.table).where({ id: row.id }).update(row.columns);
      }
      await writeLedger(trx, ledgerRows, context.nowSql);
    });
  }
  context.progress.tableDone(spec.table, counts);
  return new Set(order.map((row) => row.id));
}

function sameColumns(here: Record<string, unknown>, columns: Record<string, unknown>): boolean {
  return Object.entries(columns).every(([column, value]) => {
    const current = here[column];
    if (value === null || current === null || current === undefined) return (current ?? null) === value;
    return typeof value === 'number' ? Number(current) === value : String(current) === String(value);
  });
}

/**
 * Departments ordered so that every parent comes before its children. A parent IceHrm lacks (or
 * that was left out), or a loop of parents, leaves the department without one, noted.
 */
function parentsFirst<T extends { id: number; columns: Record<string, unknown>; action: string }>(
  planned: Map<number, T>,
  existing: Map<number, Record<string, unknown>>,
  spec: ReferenceSpec,
  context: ImportContext,
): T[] {
  const ordered: T[] = [];
  const state = new Map<number, 'visiting' | 'done'>();
  const visit = (row: T) => {
    if (state.get(row.id) === 'done') return;
    state.set(row.id, 'visiting');
    const parentId = row.columns.parent_id as number | null;
    if (parentId !== null) {
      const parent = planned.get(parentId);
      if (!parent && !existing.has(parentId)) {
        context.report.notes.push(`${spec.noun} ${row.id}: parent ${parentId} does not exist in IceHrm: imported at the top`);
        row.columns.parent_id = null;
      } else if (parent && state.get(parentId) === 'visiting') {
        context.report.notes.push(`${spec.noun} ${row.id}: its parents form a loop: imported at the top`);
        row.columns.parent_id = null;
      } else if (parent) visit(parent);
    }
    state.set(row.id, 'done');
    ordered.push(row);
  };
  for (const row of planned.values()) visit(row);
  return ordered;
}
