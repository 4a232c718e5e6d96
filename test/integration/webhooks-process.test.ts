import { runCli } from '../../src/cli/program';
import { systemClock } from '../../src/clock';
import { createTestDatabase, type TestDatabase, testDialects } from '../helpers/databases';
import { type ServerProcess, startServerProcess } from '../helpers/server-process';
import { WebhookReceiver } from '../helpers/webhook-receiver';

const ENV = { WEBHOOK_ALLOW_HTTP: '1', WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_TIMEOUT: '2' };

async function hrm(database: TestDatabase, argv: string[]): Promise<string> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { DATABASE_URL: database.url, LOG_LEVEL: 'silent', ...ENV },
    readStdin: async () => '',
    clock: systemClock,
  });
  if (code !== 0) throw new Error(`hrm ${argv.join(' ')} failed: ${stderr}`);
  return stdout;
}

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
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  let token: string;
  const servers: ServerProcess[] = [];
  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    receiver = await WebhookReceiver.start();
    await hrm(database, ['api', 'enable']);
    await hrm(database, ['user', 'create', '--username', 'ops', '--role', 'admin']);
    token = (await hrm(database, ['token', 'issue', '--username', 'ops'])).trim();
    const added = await hrm(database, ['webhook', 'add', '--url', receiver.url, '--events', 'employee.created']);
    receiver.secrets.push(/whsec_\S+/.exec(added)?.[0] ?? '');
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    await receiver.close();
    await database.drop();
  });

  const start = async () => {
    const server = await startServerProcess({ DATABASE_URL: database.url, ...ENV });
    expect(server.apiUrl).not.toBe('');
    servers.push(server);
    return server;
  };
  const hire = async (server: ServerProcess, n: number) => {
    const res = await fetch(`${server.apiUrl}/employees`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ employee_id: `P${n}`, first_name: 'Pro', last_name: `Cess${n}` }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };

  it('delivers after a restart what a server killed with SIGKILL had committed but not delivered', async () => {
    receiver.hold();
    const first = await start();
    const id = await hire(first, 1);
    await receiver.waitFor(1);

    // Killed while the receiver has not answered: the delivery is committed, leased, not done.
    first.child.kill('SIGKILL');
    await first.exited;
    receiver.release();
    expect((await until(database, (rows) => rows.length === 1))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    await start();

    await receiver.waitFor(2);
    const rows = await until(database, (found) => found.every((row) => row.status === 'delivered'));

    const [lost, delivered] = receiver.received;
    expect(delivered?.verifiedWith).toEqual(receiver.secrets);
    expect(delivered?.event).toMatchObject({ type: 'employee.created', data: { id, employee_id: 'P1' } });
    // The same event (receivers dedupe by webhook-id), sent once more because the first answer never reached a live server.
    expect(delivered?.headers['webhook-id']).toBe(lost?.headers['webhook-id']);
    expect(rows).toEqual([expect.objectContaining({ status: 'delivered', attempts: 1 })]);
  }, 90_000);

  it('has two server processes on one database deliver each event once', async () => {
    const servers = [await start(), await start()];
    const ids: string[] = [];
    for (let n = 0; n < 20; n++) ids.push(await hire(servers[n % 2] as ServerProcess, n));

    await until(database, (rows) => rows.length === 20 && rows.every((row) => row.status === 'delivered'));

    const received = receiver.received.map((got) => got.event.data.id as string);
    expect(received.sort()).toEqual([...ids].sort());
    expect(new Set(receiver.received.map((got) => got.headers['webhook-id'])).size).toBe(20);
    expect(receiver.received.every((got) => got.verifiedWith.length === 1)).toBe(true);
    const rows = await until(database, () => true);
    expect(rows.every((row) => row.attempts === 1)).toBe(true);
  }, 90_000);
});
