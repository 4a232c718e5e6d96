import type { Knex } from 'knex';
import type { LeaveSettings } from '../leave-rules/hours';
import type { WriteContext } from './leave-types';
import { reopenWhereLeaveHoursMove } from './reopen';
import { writeLeaveSettings } from './settings';

/**
 * PUT /leave-settings (admins; the route checks the role): the keys sent, written. Every approved
 * timesheet of an open period whose leave or holiday hours the new work week or day length moves
 * goes back to open (leave_settings_changed); a locked period keeps the hours of its lock.
 */
export async function changeLeaveSettings(
  trx: Knex.Transaction,
  change: Partial<LeaveSettings>,
  context: WriteContext,
): Promise<LeaveSettings> {
  return reopenWhereLeaveHoursMove(trx, {}, context, 'leave_settings_changed', () => writeLeaveSettings(trx, change, context.now));
}
