import { type TestDatabase, testDialects } from '../helpers/databases';
import { useProcessWebhooks } from '../helpers/process-webhooks';
import type { ServerProcess } from '../helpers/server-process';

// The schedules sweep in a real server process (docs/schedules.md, "Sweeps"): day.absent is
// delivered once per employee and date, and a restarted server announces nothing twice. The
// sweep runs every second here (SCHEDULE_SWEEP_INTERVAL) so that the test waits for runs, not
// for a quarter of an hour.

const ENV = { WEBHOOK_ALLOW_HTTP: '1', WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_TIMEOUT: '2', SCHEDULE_SWEEP_INTERVAL: '1' };
const HOUR = 3_600_000;

/** The rows of `table`, read on a connection of the test's own. */
async function rowsOf(database: TestDatabase, table: string): Promise<Array<Record<string, any>>> {
  const db = database.open();
  try {
    return await db(table).select();
  } finally {
    await db.destroy();
  }
}

/**
 * Resolves once the server with this pid has renewed its sweep lease twice after the first
 * renewal seen here: runs are sequential, so a whole run began and ended after this was called
 * (a test failure after `timeoutMs`, not a timing assertion).
 */
async function twoMoreSweeps(database: TestDatabase, pid: number, timeoutMs = 30_000): Promise<void> {
  const seen = new Set<string>();
  const deadline = Date.now() + timeoutMs;
  while (seen.size < 3) {
    if (Date.now() > deadline) throw new Error(`The server ${pid} renewed its sweep lease ${seen.size} times`);
    const lease = (await rowsOf(database, 'sweep_leases')).find((row) => String(row.holder).includes(`:${pid}:`));
    if (lease) seen.add(String(lease.expires_at));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** 'YYYY-MM-DDTHH:MM' of an instant on the UTC wall clock. */
const utcLocal = (ms: number) => new Date(ms).toISOString().slice(0, 16);

describe.each(testDialects())('day.absent from a server process on %s', (dialect) => {
  const fx = useProcessWebhooks(dialect, 'day.absent', ENV);
  const { start } = fx;
  const post = async (server: ServerProcess, path: string, body: object) => {
    const res = await fetch(`${server.apiUrl}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${fx.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; date?: string };
  };
  /** An employee with a published shift from `startMs` to `endMs` (whole minutes, UTC), and no attendance. */
  const scheduled = async (server: ServerProcess, n: number, startMs: number, endMs: number) => {
    const employee = await post(server, '/employees', {
      employee_id: `S${n}`,
      first_name: 'Sweep',
      last_name: `Process${n}`,
      joined_date: '2020-01-01',
    });
    const shift = await post(server, '/shifts', {
      employee: Number(employee.id),
      start_local: utcLocal(startMs),
      end_local: utcLocal(endMs),
      timezone: 'UTC',
      status: 'published',
    });
    return { id: employee.id, date: shift.date as string };
  };

  it('delivers day.absent once when an absence is final, and not again after a restart', async () => {
    const now = Date.now();
    const first = await start();
    // Its check-out window (60 minutes) closed two hours ago: final at the first sweep.
    const absent = await scheduled(first, 1, now - 4 * HOUR, now - 3 * HOUR);
    // Its window is still open: pending, never announced here.
    await scheduled(first, 2, now + HOUR, now + 2 * HOUR);

    await fx.receiver.waitFor(1);
    await twoMoreSweeps(fx.database, first.child.pid as number);
    expect(fx.receiver.events.map((event) => [event.type, event.data.employee.id, event.data.date, event.data.status])).toEqual([
      ['day.absent', absent.id, absent.date, 'absent'],
    ]);

    // A graceful stop gives the lease up, so the restarted server sweeps at once.
    await first.stop();
    expect(await rowsOf(fx.database, 'sweep_leases')).toEqual([]);
    const second = await start();
    const later = await scheduled(second, 3, now - 4 * HOUR, now - 3 * HOUR);

    await fx.receiver.waitFor(2);
    await twoMoreSweeps(fx.database, second.child.pid as number);
    expect(fx.receiver.events.map((event) => [event.type, event.data.employee.id, event.data.date])).toEqual([
      ['day.absent', absent.id, absent.date],
      ['day.absent', later.id, later.date],
    ]);
    expect(fx.receiver.received.every((request) => request.verifiedWith.length === 1)).toBe(true);
    expect((await rowsOf(fx.database, 'day_absences')).map((row) => String(row.employee_id)).sort()).toEqual([absent.id, later.id].sort());
  }, 90_000);
});
