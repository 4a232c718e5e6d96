import { type TestDatabase, testDialects } from '../helpers/databases';
import { useProcessWebhooks } from '../helpers/process-webhooks';
import type { ServerProcess } from '../helpers/server-process';

const ENV = { WEBHOOK_ALLOW_HTTP: '1', WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_TIMEOUT: '2' };

/** Polls the database until `check` holds (a test failure after `timeoutMs`, not a timing assertion). */
async function until(
  database: TestDatabase,
  check: (rows: Array<Record<string, any>>) => boolean,
  timeoutMs = 30_000,
): Promise<Array<Record<string, any>>> {
  const db = database.open();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows: Array<Record<string, any>> = await db('webhook_deliveries').select();
      if (check(rows)) return rows;
      if (Date.now() > deadline) throw new Error(`Deliveries never reached the state waited for: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await db.destroy();
  }
}

describe.each(testDialects())('webhook delivery by server processes on %s', (dialect) => {
  const fx = useProcessWebhooks(dialect, 'employee.created', ENV);
  const { start } = fx;
  const hire = async (server: ServerProcess, n: number) => {
    const res = await fetch(`${server.apiUrl}/employees`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${fx.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ employee_id: `P${n}`, first_name: 'Pro', last_name: `Cess${n}` }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };

  it('delivers after a restart what a server killed with SIGKILL had committed but not delivered', async () => {
    fx.receiver.hold();
    const first = await start();
    const id = await hire(first, 1);
    await fx.receiver.waitFor(1);

    // Killed while the fx.receiver has not answered: the delivery is committed, leased, not done.
    first.child.kill('SIGKILL');
    await first.exited;
    fx.receiver.release();
    expect((await until(fx.database, (rows) => rows.length === 1))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    // Its lease runs out WEBHOOK_TIMEOUT plus a 10-s margin after the claim; the test moves that
    // moment into the past rather than wait for it (the restarted server still meets a lease).
    const db = fx.database.open();
    try {
      expect(await db('webhook_deliveries').whereNotNull('lease_owner').update({ lease_until: '2000-01-01 00:00:00' })).toBe(1);
    } finally {
      await db.destroy();
    }
    await start();

    await fx.receiver.waitFor(2);
    const rows = await until(fx.database, (found) => found.every((row) => row.status === 'delivered'));

    const [lost, delivered] = fx.receiver.received;
    expect(delivered?.verifiedWith).toEqual(fx.receiver.secrets);
    expect(delivered?.event).toMatchObject({ type: 'employee.created', data: { id, employee_id: 'P1' } });
    // The same event (receivers dedupe by webhook-id), sent once more because the first answer never reached a live server.
    expect(delivered?.headers['webhook-id']).toBe(lost?.headers['webhook-id']);
    expect(rows).toEqual([expect.objectContaining({ status: 'delivered', attempts: 1 })]);
  }, 90_000);

  it('has two server processes on one fx.database deliver each event once', async () => {
    const servers = [await start(), await start()];
    const ids: string[] = [];
    for (let n = 0; n < 20; n++) ids.push(await hire(servers[n % 2] as ServerProcess, n));

    await until(fx.database, (rows) => rows.length === 20 && rows.every((row) => row.status === 'delivered'));

    const received = fx.receiver.received.map((got) => got.event.data.id as string);
    expect(received.sort()).toEqual([...ids].sort());
    expect(new Set(fx.receiver.received.map((got) => got.headers['webhook-id'])).size).toBe(20);
    expect(fx.receiver.received.every((got) => got.verifiedWith.length === 1)).toBe(true);
    const rows = await until(fx.database, () => true);
    expect(rows.every((row) => row.attempts === 1)).toBe(true);
  }, 90_000);
});
