import { runCli } from '../../src/cli/program';
import { systemClock } from '../../src/clock';
import { createTestDatabase, type TestDatabase } from './databases';
import { type ServerProcess, startServerProcess } from './server-process';
import { WebhookReceiver } from './webhook-receiver';

// Server processes that deliver webhooks to a receiver of the test's own: a fresh database per
// test with the API enabled, an admin's token and one subscription to `events`.

/** Runs the CLI on `database` with `env`; its standard output, or a test failure. */
export async function hrm(database: TestDatabase, argv: string[], env: Record<string, string> = {}): Promise<string> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { DATABASE_URL: database.url, LOG_LEVEL: 'silent', ...env },
    readStdin: async () => '',
    clock: systemClock,
  });
  if (code !== 0) throw new Error(`hrm ${argv.join(' ')} failed: ${stderr}`);
  return stdout;
}

export interface ProcessWebhooks {
  database: TestDatabase;
  receiver: WebhookReceiver;
  /** An admin's bearer token. */
  token: string;
  /** Starts a server process on the test's database with the fixture's environment. */
  start(): Promise<ServerProcess>;
}

/** Sets the fixture up before each test and tears it down after (servers stopped, database dropped). */
export function useProcessWebhooks(
  dialect: Parameters<typeof createTestDatabase>[0],
  events: string,
  env: Record<string, string>,
): ProcessWebhooks {
  const servers: ServerProcess[] = [];
  const fixture = {
    start: async () => {
      const server = await startServerProcess({ DATABASE_URL: fixture.database.url, ...env });
      expect(server.apiUrl).not.toBe('');
      servers.push(server);
      return server;
    },
  } as ProcessWebhooks;
  beforeEach(async () => {
    fixture.database = await createTestDatabase(dialect);
    fixture.receiver = await WebhookReceiver.start();
    await hrm(fixture.database, ['api', 'enable'], env);
    await hrm(fixture.database, ['user', 'create', '--username', 'ops', '--role', 'admin'], env);
    fixture.token = (await hrm(fixture.database, ['token', 'issue', '--username', 'ops'], env)).trim();
    const added = await hrm(fixture.database, ['webhook', 'add', '--url', fixture.receiver.url, '--events', events], env);
    fixture.receiver.secrets.push(/whsec_\S+/.exec(added)?.[0] ?? '');
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    await fixture.receiver.close();
    await fixture.database.drop();
  });
  return fixture;
}
