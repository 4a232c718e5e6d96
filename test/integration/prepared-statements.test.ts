import { writeAudit } from '../../src/audit/repository';
import { testDialects } from '../helpers/databases';
import { unique } from '../helpers/factories';
import { type TestApp, useTestApp } from '../helpers/test-app';

// Prepared statements (src/db/driver-statements.ts) run on a transaction's own connection when given one:
// the punch statements and the audit row rely on it.
describe.each(testDialects())('prepared statements in transactions on %s', (dialect) => {
  const t = useTestApp(dialect);

  const auditRowsOf = (requestId: string) => t.db('audit_log').where({ request_id: requestId }).select('id', 'action');
  const write = (db: TestApp['db'], requestId: string) =>
    writeAudit(
      db,
      { action: 'update', entityType: 'employee', entityId: 1, fields: ['city'] },
      { caller: undefined, requestId, now: t.clock.now() },
    );

  it('writes nothing when the transaction rolls back, and its row when it commits', async () => {
    const rolledBack = unique('rolled-back-');
    const committed = unique('committed-');

    await expect(
      t.db.transaction(async (trx) => {
        await write(trx, rolledBack);
        expect(await trx('audit_log').where({ request_id: rolledBack }).count({ n: '*' })).toEqual([{ n: 1 }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await t.db.transaction((trx) => write(trx, committed));

    expect(await auditRowsOf(rolledBack)).toEqual([]);
    expect(await auditRowsOf(committed)).toEqual([expect.objectContaining({ action: 'update' })]);
  });

  it('refuses to run on a transaction that has ended', async () => {
    const trx = await t.db.transaction();
    await trx.commit();
    const requestId = unique('ended-');

    await expect(write(trx, requestId)).rejects.toThrow('Prepared statement on a transaction that has ended');
    expect(await auditRowsOf(requestId)).toEqual([]);
  });
});
