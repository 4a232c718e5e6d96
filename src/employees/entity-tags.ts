import type { KeyObject } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Caller } from '../caller';
import type { Db } from '../db/connect';
import type { EmployeeRecord } from '../employee-records/record';
import { assertIfMatch, entityTag, type IfMatch, sendJsonWithEntityTag } from '../http/conditional';
import { callerOf, instanceOf } from '../http/context';
import type { Instance } from '../instances/instance';
import { type NameLookup, referenceNamesOf } from '../lookups/reference-names';
import { seesPersonalFields } from './access';
import type { FieldSelection } from './field-selection';
import { employeeNames, type ReferenceNames, toEmployeeJson } from './output';

/** Whom an employee's full read shape is written for: admins read every field. */
const FULL_VIEW: Caller = { userId: 0, username: '', role: 'admin', employeeId: null, tokenId: '' };

/** An employee as one caller reads them: the JSON and its ETag. */
export interface EmployeeRepresentation {
  json: string;
  etag: string;
}

/**
 * The employee as `caller` reads them, with its ETag, whose version MACs the full read shape
 * (src/http/conditional.ts). Written once when the caller reads that full shape (an admin, the
 * employee themselves, no field selection); else the full shape is written too, for the version.
 */
export function employeeRepresentation(
  key: KeyObject,
  record: EmployeeRecord,
  caller: Caller,
  names: NameLookup,
  selection?: FieldSelection,
): EmployeeRepresentation {
  const json = toEmployeeJson(record, caller, names, selection);
  const state = !selection && seesPersonalFields(caller, record.id) ? json : toEmployeeJson(record, FULL_VIEW, names);
  return { json, etag: entityTag(key, state, json) };
}

/**
 * A write's If-Match, checked against the employee as stored (read in the write's transaction
 * `db`, their row locked): 412 and nothing written unless it names their current version.
 */
export async function assertEmployeeIfMatch(
  ifMatch: IfMatch | undefined,
  stored: EmployeeRecord,
  names: ReferenceNames,
  db: Db,
): Promise<void> {
  if (!ifMatch) return;
  const lookup = await employeeNames(names, [stored], db);
  assertIfMatch(ifMatch, () => toEmployeeJson(stored, FULL_VIEW, lookup));
}

/** A write's answer: the employee as the caller reads them, and the ETag a GET would answer. */
export async function employeeAnswer(
  instance: Instance,
  caller: Caller,
  record: EmployeeRecord,
  trx: Db,
): Promise<{ headers: { ETag: string }; body: Record<string, unknown> }> {
  const names = await employeeNames(referenceNamesOf(instance), [record], trx);
  const { json, etag } = employeeRepresentation(instance.entityTagKey, record, caller, names);
  return { headers: { ETag: etag }, body: JSON.parse(json) as Record<string, unknown> };
}

/** GET /employees/{id}: the employee as the caller reads them, with its ETag, or 304 (If-None-Match). */
export async function sendEmployee(req: Request, res: Response, record: EmployeeRecord, selection?: FieldSelection): Promise<void> {
  const instance = instanceOf(req);
  const names = await employeeNames(referenceNamesOf(instance), [record]);
  const { json, etag } = employeeRepresentation(instance.entityTagKey, record, callerOf(req), names, selection);
  sendJsonWithEntityTag(req, res, json, etag);
}
