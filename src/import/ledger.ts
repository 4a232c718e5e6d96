import { createHash } from 'node:crypto';
import type { Db } from '../db/connect';

/** The kinds of IceHrm rows the ledger records (import_ledger.kind). */
export type LedgerKind = 'employment_status' | 'job_title' | 'pay_grade' | 'department' | 'province' | 'employee' | 'user' | 'attendance';

export interface LedgerEntry {
  targetId: number;
  fingerprint: string;
}

export interface LedgerRow {
  kind: LedgerKind;
  sourceId: number;
  targetId: number;
  groupId?: number | null;
  fingerprint: string;
}

/** A short, stable fingerprint of what an IceHrm row became here: equal fingerprints, nothing to write. */
export function fingerprintOf(value: unknown): string {
  return createHash('sha1').update(JSON.stringify(value)).digest('base64url');
}

/** Every entry of one kind, by IceHrm id. */
export async function readLedger(db: Db, kind: LedgerKind): Promise<Map<number, LedgerEntry>> {
  const rows = (await db('import_ledger').where({ kind }).select('source_id', 'target_id', 'fingerprint')) as Array<Record<string, unknown>>;
  return toEntries(rows);
}

/** The entries of one kind whose group (an attendance record's employee) lies in [first, last]. */
export async function readLedgerGroups(db: Db, kind: LedgerKind, first: number, last: number): Promise<Map<number, LedgerEntry>> {
  const rows = (await db('import_ledger')
    .where({ kind })
    .whereBetween('group_id', [first, last])
    .select('source_id', 'target_id', 'fingerprint')) as Array<Record<string, unknown>>;
  return toEntries(rows);
}

/** How many rows of a kind the import wrote here. */
export async function countLedger(db: Db, kind: LedgerKind): Promise<number> {
  const row = (await db('import_ledger').where({ kind }).count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

/** Records (or re-records) entries, `batchSize` rows per statement. */
export async function writeLedger(db: Db, rows: LedgerRow[], now: string, batchSize: number): Promise<void> {
  for (let start = 0; start < rows.length; start += batchSize) {
    const batch = rows.slice(start, start + batchSize).map((row) => ({
      kind: row.kind,
      source_id: row.sourceId,
      target_id: row.targetId,
      group_id: row.groupId ?? null,
      fingerprint: row.fingerprint,
      imported_at: now,
    }));
    await db('import_ledger').insert(batch).onConflict(['kind', 'source_id']).merge(['target_id', 'group_id', 'fingerprint', 'imported_at']);
  }
}

function toEntries(rows: Array<Record<string, unknown>>): Map<number, LedgerEntry> {
  return new Map(rows.map((row) => [Number(row.source_id), { targetId: Number(row.target_id), fingerprint: String(row.fingerprint) }]));
}
