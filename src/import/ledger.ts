import { createHash } from 'node:crypto';
import type { Db } from '../db/connect';
import { rowInserter } from './insert-rows';

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
  const rows = (await db('import_ledger').where({ kind }).select('source_id', 'target_id', 'fingerprint')) as Array<
    Record<string, unknown>
  >;
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

const insertLedgerRows = rowInserter('import_ledger', ['kind', 'source_id', 'target_id', 'group_id', 'fingerprint', 'imported_at'], {
  key: ['kind', 'source_id'],
  update: ['target_id', 'group_id', 'fingerprint', 'imported_at'],
});

/** Records (or re-records) entries. */
export async function writeLedger(db: Db, rows: LedgerRow[], now: string): Promise<void> {
  await insertLedgerRows(
    db,
    rows.map((row) => ({
      kind: row.kind,
      source_id: row.sourceId,
      target_id: row.targetId,
      group_id: row.groupId ?? null,
      fingerprint: row.fingerprint,
      imported_at: now,
    })),
  );
}

function toEntries(rows: Array<Record<string, unknown>>): Map<number, LedgerEntry> {
  return new Map(rows.map((row) => [Number(row.source_id), { targetId: Number(row.target_id), fingerprint: String(row.fingerprint) }]));
}
