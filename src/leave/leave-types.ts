import type { Knex } from 'knex';
import type { Caller } from '../caller';
import { writeAudit } from '../audit/repository';
import { ConflictError, type FieldError, NotFoundError, ValidationError } from '../errors';
import { parseBody } from '../http/parse';
import {
  deleteLeaveType,
  employeesWithApprovedLeaveOf,
  findLeaveType,
  insertLeaveType,
  isLeaveTypeUsed,
  type LeaveType,
  type LeaveTypeColumns,
  updateLeaveType,
} from './repository';
import { reopenWhereLeaveHoursMove } from './reopen';
import { leaveTypeCreate, leaveTypeReplace } from './schemas';

// The writes of /leave-types (admins; the route checks the role). CONTRACT 6.8's defaults: paid,
// code PTO when paid and null when not, private, include_holidays false.

export interface WriteContext {
  caller: Caller;
  now: Date;
  requestId: string;
}

function columnsOf(values: {
  name: string;
  paid?: boolean;
  code?: string | null;
  private?: boolean;
  include_holidays?: boolean;
}): LeaveTypeColumns {
  const errors: FieldError[] = [];
  const paid = values.paid ?? true;
  if (!paid && values.code != null)
    errors.push({ field: 'code', message: 'requires paid true: an unpaid type has no code (unpaid leave is no row of the export)' });
  if (paid && values.code === null)
    errors.push({ field: 'code', message: 'must be an export code for a paid type (leave it out for PTO)' });
  if (errors.length > 0) throw new ValidationError(errors);
  return {
    name: values.name,
    paid,
    code: paid ? (values.code ?? 'PTO') : null,
    private: values.private ?? true,
    include_holidays: values.include_holidays ?? false,
  };
}

const audit = (trx: Knex.Transaction, action: string, id: number, fields: string[], context: WriteContext) =>
  writeAudit(trx, { action, entityType: 'leave_type', entityId: id, fields }, context);

export async function createLeaveType(trx: Knex.Transaction, body: unknown, context: WriteContext): Promise<LeaveType> {
  const columns = columnsOf(parseBody(leaveTypeCreate, body));
  const id = await insertLeaveType(trx, columns, context.now);
  await audit(trx, 'create', id, Object.keys(columns), context);
  return { id, ...columns };
}

export async function replaceLeaveType(trx: Knex.Transaction, id: number, body: unknown, context: WriteContext): Promise<LeaveType> {
  const values = parseBody(leaveTypeReplace, body);
  if (values.id !== undefined && String(values.id) !== String(id))
    throw new ValidationError([{ field: 'id', message: 'must match the id in the path' }]);
  await storedType(trx, id);
  const columns = columnsOf(values);
  // A new code or pay moves the leave hours of the approved timesheets holding this type's leave.
  const holders = await employeesWithApprovedLeaveOf(trx, id);
  await reopenWhereLeaveHoursMove(trx, { employeeIds: holders }, context, 'leave_changed', () =>
    updateLeaveType(trx, id, columns, context.now),
  );
  await audit(trx, 'update', id, Object.keys(columns), context);
  return { id, ...columns };
}

/** A type some leave uses stays (409 in_use): its leaves' names and codes depend on it. */
export async function removeLeaveType(trx: Knex.Transaction, id: number, context: WriteContext): Promise<{ id: string }> {
  await storedType(trx, id);
  if (await isLeaveTypeUsed(trx, id))
    throw new ConflictError({ code: 'in_use', detail: 'Leaves of this type exist; a type in use cannot be deleted' });
  await deleteLeaveType(trx, id);
  await audit(trx, 'delete', id, [], context);
  return { id: String(id) };
}

async function storedType(trx: Knex.Transaction, id: number): Promise<LeaveType> {
  const found = await findLeaveType(trx, id);
  if (!found) throw new NotFoundError({ detail: 'No such leave type' });
  return found;
}
