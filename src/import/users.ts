import { USERNAME_PATTERN } from '../users/user-repository';
import { FIRST_ADMIN_USERNAME } from '../provisioning/first-admin';
import { fingerprintOf, type LedgerRow, readLedger, writeLedger } from './ledger';
import { type ImportContext, quoted, textOrNull } from './report';
import type { SourceRow } from './icehrm-source';

/** IceHrm's user levels and the roles they become. "Other" (custom roles) gets the least. */
const ROLES: Record<string, 'admin' | 'manager' | 'employee'> = { Admin: 'admin', Manager: 'manager', Employee: 'employee' };

interface PlannedUser {
  sourceId: number;
  columns: { username: string; role: string; employee_id: number | null };
  /** The user here: an earlier import's, or the first-start admin it takes over. */
  targetId: number | undefined;
  action: 'add' | 'update' | 'keep';
  fingerprint: string;
}

/**
 * Copies IceHrm's users: username, role (from the user level) and the employee link, without a
 * password (IceHrm's hashes and API tokens are of no use here). Users get ids of their own: a
 * token names its user, and the first start's `admin` (whose token the operator holds) stays
 * user 1. IceHrm's `admin` takes that user over. A username already used by another user here
 * is left out; a link to an employee not imported is left empty, noted. Users here have no
 * e-mail: GET /employees/me answers the employee's work e-mail.
 */
export async function importUsers(context: ImportContext, sourceRows: SourceRow[], employees: Map<number, string>): Promise<void> {
  const { db, report } = context;
  const counts = report.counts('users');
  const ledger = await readLedger(db, 'user');
  const ours = new Map([...ledger].map(([sourceId, entry]) => [entry.targetId, sourceId]));
  const here = new Map(
    (
      (await db('users').select('id', 'username', 'employee_id')) as Array<{ id: number; username: string; employee_id: number | null }>
    ).map((row) => [
      row.username.toLowerCase(),
      { id: Number(row.id), employee: row.employee_id === null ? null : Number(row.employee_id) },
    ]),
  );
  const linkedHere = new Map([...here.values()].filter((user) => user.employee !== null).map((user) => [user.employee!, user.id]));
  const linked = new Set<number>();
  const usernames = new Set<string>();
  const planned: PlannedUser[] = [];
  let otherLevels = 0;

  for (const row of sourceRows) {
    counts.read++;
    const sourceId = Number(row.id);
    const username = textOrNull(row.username)?.trim() ?? '';
    const what = `user ${sourceId}${username ? ` (${username})` : ''}`;
    if (!USERNAME_PATTERN.test(username)) {
      report.reject('users', `${what}: username ${quoted(username)} is not usable here (1 to 100 of A-Z a-z 0-9 . _ @ -)`);
      continue;
    }
    const key = username.toLowerCase();
    if (usernames.has(key)) {
      report.reject(
        'users',
        `${what}: username ${quoted(username)} is used by another IceHrm user (usernames are unique in any case here)`,
      );
      continue;
    }
    const existing = here.get(key);
    const previous = ledger.get(sourceId);
    const isOurs = existing !== undefined && ours.get(existing.id) === sourceId;
    const takesOverAdmin = existing !== undefined && !ours.has(existing.id) && key === FIRST_ADMIN_USERNAME;
    if (existing && !isOurs && !takesOverAdmin) {
      report.reject('users', `${what}: username ${quoted(username)} is taken here by a user that did not come from IceHrm`);
      continue;
    }
    usernames.add(key);
    const level = String(row.user_level ?? '');
    const role = ROLES[level] ?? 'employee';
    if (!ROLES[level]) otherLevels++;

    let employee = row.employee === null || row.employee === undefined || Number(row.employee) === 0 ? null : Number(row.employee);
    if (employee !== null && !employees.has(employee)) {
      report.notes.push(`${what}: employee ${employee} is not an employee here (deleted in IceHrm, or left out): no employee linked`);
      employee = null;
    }
    const holder = employee === null ? undefined : linkedHere.get(employee);
    if (employee !== null && (linked.has(employee) || (holder !== undefined && holder !== existing?.id))) {
      report.notes.push(`${what}: employee ${employee} is linked to another user already: no employee linked`);
      employee = null;
    }
    if (employee !== null) linked.add(employee);
    if (takesOverAdmin)
      report.notes.push(`${what}: takes over this server's first-start user ${FIRST_ADMIN_USERNAME} (its tokens keep working)`);

    const columns = { username, role, employee_id: employee };
    const fingerprint = fingerprintOf(columns);
    const action = !existing ? 'add' : previous?.fingerprint === fingerprint ? 'keep' : 'update';
    if (action === 'add') counts.added++;
    else if (action === 'update') counts.updated++;
    else counts.unchanged++;
    planned.push({ sourceId, columns, targetId: existing?.id, action, fingerprint });
  }
  if (otherLevels > 0) report.notes.push(`users: ${otherLevels} with IceHrm's user level "Other" (custom roles) are employees here`);

  const changed = planned.filter((user) => user.action !== 'keep');
  if (!context.dryRun && changed.length > 0) {
    await db.transaction(async (trx) => {
      const ledgerRows: LedgerRow[] = [];
      // Links move in two steps, so that two users swapping employees never meet on the unique key.
      for (const user of changed.filter((u) => u.targetId !== undefined)) {
        await trx('users').where({ id: user.targetId }).update({ employee_id: null });
      }
      for (const user of changed) {
        let id = user.targetId;
        if (id === undefined) {
          [id] = (await trx('users').insert({
            ...user.columns,
            password_hash: null,
            disabled: false,
            created_at: context.nowSql,
            updated_at: context.nowSql,
          })) as number[];
        } else {
          await trx('users')
            .where({ id })
            .update({ ...user.columns, updated_at: context.nowSql });
        }
        ledgerRows.push({ kind: 'user', sourceId: user.sourceId, targetId: Number(id), fingerprint: user.fingerprint });
      }
      await writeLedger(trx, ledgerRows, context.nowSql);
    });
  }
  context.progress.tableDone('users', counts);
}
