import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import mysql from 'mysql2/promise';
import request from 'supertest';
import { seedEmployees } from '../../src/seed/employees';
import { describeOnMysql, testDialects } from '../helpers/databases';
import { createUser, type TestUser } from '../helpers/factories';
import { expectProblem } from '../helpers/problem';
import { startTestApp, type TestApp } from '../helpers/test-app';

// One caller must not be able to hold the database (docs/security.md, API4): a budget of
// concurrent list requests per caller (CALLER_CONCURRENCY) and, on MySQL/MariaDB, a statement
// time limit for list queries (LIST_QUERY_TIMEOUT_MS). The budget's ordering and waiting are
// tested step by step in test/unit/caller-concurrency.test.ts; here it runs inside the real app.

const list = (t: TestApp, token: string, path = '/employees?sortField=birthday') =>
  request(t.app).get(t.api(path)).auth(token, { type: 'bearer' });

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * Sends the requests on connections opened beforehand, all written in one go, so that the server
 * receives them together (in one turn of its event loop), as from a client that fires them at
 * once. On SQLite a list runs from start to end without yielding: requests that arrived apart
 * would never overlap.
 *
 * The lists that are served (`heldPath`) end only once every other request has been answered, as
 * to a client that reads slowly: a served list holds its caller's turn however the requests'
 * authentications interleave (each is its own query on MySQL, and under load one can come back
 * after a whole list was answered).
 */
async function sendAtOnce(t: TestApp, requests: Array<{ path: string; token: string }>, heldPath: string): Promise<RawResponse[]> {
  const server = t.app.listening ? t.app : await new Promise<typeof t.app>((resolve) => t.app.listen(0, '127.0.0.1', () => resolve(t.app)));
  const { port } = server.address() as AddressInfo;
  let accepted = 0;
  const count = () => accepted++;
  server.on('connection', count);
  const held: Array<() => void> = [];
  let answered = 0;
  const releaseWhenOthersAnswered = () => {
    if (held.length + answered === requests.length) held.splice(0).forEach((end) => end());
  };
  const holdServedLists = (req: IncomingMessage, res: ServerResponse) => {
    if (req.url !== heldPath) return;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.end = ((...args: unknown[]) => {
      if (res.statusCode !== 200) return end(...args);
      held.push(() => end(...args));
      releaseWhenOthersAnswered();
      return res;
    }) as ServerResponse['end'];
  };
  server.prependListener('request', holdServedLists);
  const sockets = await Promise.all(
    requests.map(
      () =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
  // Written before the server accepted them, the requests would be taken one connection at a time.
  while (accepted < requests.length) await new Promise((resolve) => setTimeout(resolve, 5));
  server.off('connection', count);
  const answers = sockets.map(
    (socket) =>
      new Promise<RawResponse>((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.once('error', reject);
        socket.once('end', () => {
          answered++;
          releaseWhenOthersAnswered();
          resolve(parseResponse(Buffer.concat(chunks).toString('utf8')));
        });
      }),
  );
  requests.forEach(({ path, token }, index) => {
    sockets[index]?.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
  });
  try {
    return await Promise.all(answers);
  } finally {
    server.off('request', holdServedLists);
  }
}

function parseResponse(raw: string): RawResponse {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  let text = rest.join('\r\n\r\n');
  if (headers['transfer-encoding'] === 'chunked') {
    let body = '';
    for (let at = 0; ;) {
      const end = text.indexOf('\r\n', at);
      const size = parseInt(text.slice(at, end), 16);
      if (!size) break;
      body += text.slice(end + 2, end + 2 + size);
      at = end + 2 + size + 2;
    }
    text = body;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, text };
}

describe.each(testDialects())('the per-caller budget of list requests on %s', (dialect) => {
  let t: TestApp;
  let admin: TestUser;
  let other: TestUser;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { CALLER_CONCURRENCY: '1', CALLER_CONCURRENCY_WAIT_MS: '0' } });
    admin = await createUser(t, 'admin');
    other = await createUser(t, 'admin');
    await seedEmployees(t.db, { count: 300, now: t.clock.now() });
    // Used once already, the tokens' last_used_at is fresh: no write of it comes between
    // authentication and the budget, and all of a flood's lists reach the budget together.
    for (const user of [admin, other]) await request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' });
  });
  afterAll(() => t.close());

  it("refuses a caller's lists beyond the budget with 429 too_many_concurrent_requests and Retry-After, while another caller's are answered", async () => {
    const path = t.api('/employees?sortField=birthday');
    const answers = await sendAtOnce(
      t,
      [
        ...Array.from({ length: 8 }, () => ({ path, token: admin.token })),
        { path, token: other.token },
        { path: t.api('/employees/me'), token: other.token },
      ],
      path,
    );
    const flood = answers.slice(0, 8);

    // Received together: one list is served, the other seven find the budget spent.
    expect(flood.map((res) => res.status).sort()).toEqual([200, 429, 429, 429, 429, 429, 429, 429]);
    for (const res of flood.filter((answer) => answer.status === 429)) {
      const body = expectProblem(res, 429, 'too_many_concurrent_requests');
      expect(body.detail).toBe('At most 1 list requests of one caller are served at once; retry in 1 s');
      expect(res.headers['retry-after']).toBe('1');
    }
    expect(answers.slice(8).map((res) => res.status)).toEqual([200, 200]);
  });

  it("gives every turn back: the caller's next list is answered", async () => {
    const res = await list(t, admin.token);

    expect(res.status).toBe(200);
    expect(res.body.total).toBeGreaterThanOrEqual(300);
  });

  it("does not count writes, one record, or the caller's own record", async () => {
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () =>
        request(t.app)
          .get(t.api('/employees/me'))
          .auth(admin.token, { type: 'bearer' })
          .then((res) => res),
      ),
      ...Array.from({ length: 4 }, () =>
        request(t.app)
          .get(t.api(`/employees/${admin.employeeId}`))
          .auth(admin.token, { type: 'bearer' })
          .then((res) => res),
      ),
    ]);

    expect(answers.map((res) => res.status)).toEqual(Array(8).fill(200));
  });
});

/** A connection of its own to the app's database, which can lock a table the app's lists read. */
async function lockingConnection(t: TestApp): Promise<mysql.Connection> {
  return mysql.createConnection({ uri: t.database.url });
}

/** Waits until `count` statements of the app wait for the table lock (they are then surely held). */
async function untilWaitingForLock(connection: mysql.Connection, database: string, count: number): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    const [rows] = await connection.query(
      "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND STATE = 'Waiting for table metadata lock'",
      [database],
    );
    if (Number((rows as Array<{ n: number }>)[0]?.n) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`fewer than ${count} statements waited for the lock`);
}

const databaseOf = (t: TestApp) => decodeURIComponent(new URL(t.database.url).pathname.slice(1));

describeOnMysql('the per-caller budget while lists are held by the database (MariaDB/MySQL)', () => {
  let t: TestApp;
  let admin: TestUser;
  let other: TestUser;
  let locker: mysql.Connection;
  beforeAll(async () => {
    // No statement limit here: the held lists must stay held as long as the test says.
    t = await startTestApp('mysql', { env: { CALLER_CONCURRENCY: '2', CALLER_CONCURRENCY_WAIT_MS: '1000', LIST_QUERY_TIMEOUT_MS: '0' } });
    admin = await createUser(t, 'admin');
    other = await createUser(t, 'admin');
    locker = await lockingConnection(t);
  });
  afterAll(async () => {
    await locker.end();
    await t.close();
  });

  it('lets the excess wait, refuses it with 429 after CALLER_CONCURRENCY_WAIT_MS, and serves a waiting one when a turn comes free', async () => {
    await locker.query('LOCK TABLES attendance WRITE');
    let unlocked = false;
    try {
      // Two lists of the admin's, held by the lock: the budget is spent.
      const held = [list(t, admin.token, '/attendance').then((res) => res), list(t, admin.token, '/attendance').then((res) => res)];
      await untilWaitingForLock(locker, databaseOf(t), 2);

      const started = Date.now();
      const refused = await list(t, admin.token, '/attendance');
      const waited = Date.now() - started;
      const otherCaller = await list(t, other.token, '/employees');
      const ownRecord = await request(t.app).get(t.api('/employees/me')).auth(admin.token, { type: 'bearer' });
      const waiting = list(t, admin.token, '/employees').then((res) => res);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await locker.query('UNLOCK TABLES');
      unlocked = true;

      expectProblem(refused, 429, 'too_many_concurrent_requests');
      expect(refused.headers['retry-after']).toBe('1');
      expect(waited).toBeGreaterThanOrEqual(950);
      expect(otherCaller.status).toBe(200);
      expect(ownRecord.status).toBe(200);
      expect((await Promise.all(held)).map((res) => res.status)).toEqual([200, 200]);
      expect((await waiting).status).toBe(200);
    } finally {
      if (!unlocked) await locker.query('UNLOCK TABLES');
    }
  });
});

describeOnMysql('the statement time limit of list queries (MariaDB/MySQL)', () => {
  let t: TestApp;
  let admin: TestUser;
  let locker: mysql.Connection;
  beforeAll(async () => {
    t = await startTestApp('mysql', { env: { LIST_QUERY_TIMEOUT_MS: '300' } });
    admin = await createUser(t, 'admin');
    locker = await lockingConnection(t);
  });
  afterAll(async () => {
    await locker.end();
    await t.close();
  });

  it('stops a list query that runs past LIST_QUERY_TIMEOUT_MS: 503 query_timeout with Retry-After, no SQL or driver text', async () => {
    await locker.query('LOCK TABLES attendance WRITE');
    let res: request.Response;
    const started = Date.now();
    try {
      res = await list(t, admin.token, '/attendance');
    } finally {
      await locker.query('UNLOCK TABLES');
    }
    const took = Date.now() - started;

    const body = expectProblem(res, 503, 'query_timeout');
    expect(body.detail).toBe(
      'The list took too long to read and was stopped; narrow it (filters, a sortField with an index) or try again shortly',
    );
    expect(res.headers['retry-after']).toBe('5');
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(5000);
  });

  it('answers the same list once nothing holds it, and leaves reads of one record alone', async () => {
    await locker.query('LOCK TABLES attendance WRITE');
    let me: request.Response;
    try {
      // Not a list: it does not read attendance, and runs without the limit.
      me = await request(t.app).get(t.api('/employees/me')).auth(admin.token, { type: 'bearer' });
    } finally {
      await locker.query('UNLOCK TABLES');
    }
    const listed = await list(t, admin.token, '/attendance');

    expect(me.status).toBe(200);
    expect(listed.status).toBe(200);
  });
});

describeOnMysql('a list that reads too much, on MariaDB/MySQL', () => {
  let t: TestApp;
  let admin: TestUser;
  beforeAll(async () => {
    // 1 ms: a search and a sort without an index over 30,000 rows take several times longer, on
    // any machine (3,000 rows were sometimes done within it).
    t = await startTestApp('mysql', { env: { LIST_QUERY_TIMEOUT_MS: '1' } });
    admin = await createUser(t, 'admin');
    await seedEmployees(t.db, { count: 30_000, now: t.clock.now() });
  });
  afterAll(() => t.close());

  it('is stopped by the server: 503 query_timeout', async () => {
    const res = await list(t, admin.token, '/employees?sortField=birthday&sortOrder=desc&search=a');

    expectProblem(res, 503, 'query_timeout');
  });
});

describe('the statement time limit on SQLite', () => {
  let t: TestApp;
  let admin: TestUser;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { env: { LIST_QUERY_TIMEOUT_MS: '1' } });
    admin = await createUser(t, 'admin');
    await seedEmployees(t.db, { count: 3000, now: t.clock.now() });
  });
  afterAll(() => t.close());

  it('does not apply: SQLite cannot stop a running statement, so the list is answered (docs/decisions.md)', async () => {
    const res = await list(t, admin.token, '/employees?sortField=birthday&sortOrder=desc&search=a');

    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
  });
});
