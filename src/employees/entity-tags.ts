import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import type { EmployeeRecord } from '../employee-records/record';
import { entityTag, type Precondition } from '../http/conditional';
import type { Instance } from '../instances/instance';
import type { NameLookup } from '../lookups/reference-names';
import { employeeReferenceNames, toEmployeeJson } from './output';

/** Whom an employee's full read shape is written for: admins read every field. */
const FULL_VIEW: Caller = { userId: 0, username: '', role: 'admin', employeeId: null, tokenId: '' };

/**
 * The employee's full read shape as JSON, every field and reference name included: the state an
 * employee's ETag's version hashes (src/http/conditional.ts), whoever reads it, however shaped.
 */
export function employeeStateJson(record: EmployeeRecord, names: NameLookup): string {
  return toEmployeeJson(record, FULL_VIEW, names);
}

/** A write's answer: the employee as the caller reads them, and its ETag (the same a GET answers). */
export async function employeeAnswer(
  instance: Instance,
  caller: Caller,
  record: EmployeeRecord,
  db: Db,
): Promise<{ headers: { ETag: string }; body: Record<string, unknown> }> {
  const names = await employeeReferenceNames(instance, [record], db);
  const json = toEmployeeJson(record, caller, names);
  return { headers: { ETag: entityTag(employeeStateJson(record, names), json) }, body: JSON.parse(json) as Record<string, unknown> };
}

/** An If-Match precondition (ifMatchOf) as a check of an employee read in the write's transaction `db`. */
export function employeePrecondition(
  instance: Instance,
  precondition: Precondition | undefined,
  db: Db,
): ((current: EmployeeRecord) => Promise<void>) | undefined {
  if (!precondition) return undefined;
  return async (current) => precondition(employeeStateJson(current, await employeeReferenceNames(instance, [current], db)));
}
