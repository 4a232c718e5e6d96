import express, { type Express } from 'express';
import request from 'supertest';
import type { Instance } from '../../src/instances/instance';
import { toAppError } from '../../src/http/error-handler';
import { limitCallerConcurrency } from '../../src/rate-limits/concurrency';

/**
 * The budget on a bare Express app whose list handler answers only when the test lets it: which
 * requests are being served at any moment is then known, whatever the machine's speed. The
 * integration tests (caller-concurrency.test.ts) run it inside the real app on both databases.
 */
function appWithGatedLists(options: { limit: number; waitMs: number }): {
  app: Express;
  served: string[];
  closed: string[];
  release(name: string): void;
} {
  const served: string[] = [];
  // Requests whose response the server saw end (answered, or the client went away).
  const closed: string[] = [];
  const gates = new Map<string, () => void>();
  const app = express();
  app.use((req, res, next) => {
    // What resolveInstance and requireBearer set in the real app.
    req.instance = { realm: 'hrm' } as Instance;
    const user = req.get('X-User');
    req.caller =
      user === undefined ? undefined : { userId: Number(user), username: `u${user}`, role: 'admin', employeeId: null, tokenId: 't' };
    req.clientIp = '127.0.0.1';
    res.once('close', () => closed.push(String(req.get('X-Name'))));
    // Authentication still running when the client goes away: the budget meets a closed response.
    if (req.get('X-Slow') !== undefined) res.once('close', () => next());
    else next();
  });
  app.use(limitCallerConcurrency(options, ['/employees', '/employees/:id/attendance', '/openapi.json']));
  const gated: express.RequestHandler = (req, res) => {
    const name = String(req.get('X-Name'));
    served.push(name);
    gates.set(name, () => res.json({ name }));
  };
  app.get(['/employees', '/employees/:id/attendance', '/openapi.json'], gated);
  app.post('/employees', (_req, res) => res.status(201).json({}));
  app.get('/employees/me', (_req, res) => res.json({ me: true }));
  app.use(((error, _req, res, _next) => {
    const mapped = toAppError(error, { bodyLimitBytes: 1024 });
    res
      .status(mapped?.status ?? 500)
      .set(mapped?.headers ?? {})
      .json({ code: mapped?.code });
  }) as express.ErrorRequestHandler);
  return {
    app,
    served,
    closed,
    release: (name) => {
      const gate = gates.get(name);
      if (!gate) throw new Error(`${name} is not being served`);
      gate();
    },
  };
}

/** Resolves once `check` holds (the server handles requests on its own schedule). */
async function until(check: () => boolean): Promise<void> {
  for (let tries = 0; !check(); tries++) {
    if (tries > 500) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('limitCallerConcurrency', () => {
  it('takes no turn for a client that went away before its list reached the budget', async () => {
    const { app, served, closed, release } = appWithGatedLists({ limit: 2, waitMs: 300 });
    const server = app.listen(0);
    try {
      // Three clients give up while their requests are still being authenticated.
      for (const name of ['gone1', 'gone2', 'gone3']) {
        await expect(request(server).get('/employees').set({ 'X-User': '1', 'X-Name': name, 'X-Slow': '1' }).timeout(30)).rejects.toThrow();
      }
      await until(() => closed.includes('gone3'));

      const next = request(server)
        .get('/employees')
        .set({ 'X-User': '1', 'X-Name': 'b1' })
        .then((res) => res);
      await until(() => served.includes('b1'));
      release('b1');
      const answer = await next;

      expect(served).toEqual(['b1']);
      expect(answer.status).toBe(200);
    } finally {
      server.close();
    }
  });

  it('serves a caller N lists at once; the next waits, and is refused with 429 and Retry-After when no turn comes', async () => {
    const { app, served, release } = appWithGatedLists({ limit: 2, waitMs: 300 });
    const server = app.listen(0);
    try {
      const list = (name: string, user = '1') => request(server).get('/employees').set({ 'X-User': user, 'X-Name': name });
      const first = list('a1').then((res) => res);
      const second = list('a2').then((res) => res);
      await until(() => served.length === 2);

      const started = Date.now();
      const third = await list('a3');
      const waited = Date.now() - started;

      expect(third.status).toBe(429);
      expect(third.body).toEqual({ code: 'too_many_concurrent_requests' });
      expect(third.headers['retry-after']).toBe('1');
      expect(waited).toBeGreaterThanOrEqual(280);
      expect(served).toEqual(['a1', 'a2']);
      release('a1');
      release('a2');
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('gives a waiting request the first turn that comes free, in the order they came', async () => {
    const { app, served, release } = appWithGatedLists({ limit: 1, waitMs: 5000 });
    const server = app.listen(0);
    try {
      const list = (name: string) =>
        request(server)
          .get('/employees')
          .set({ 'X-User': '1', 'X-Name': name })
          .then((res) => res);
      const first = list('b1');
      await until(() => served.length === 1);
      const second = list('b2');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const third = list('b3');
      await new Promise((resolve) => setTimeout(resolve, 50));

      expect(served).toEqual(['b1']);
      release('b1');
      await until(() => served.length === 2);
      expect(served).toEqual(['b1', 'b2']);
      release('b2');
      await until(() => served.length === 3);
      release('b3');

      expect([(await first).status, (await second).status, (await third).status]).toEqual([200, 200, 200]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("does not let one caller's lists hold another caller's, nor count requests that are not heavy lists", async () => {
    const { app, served, release } = appWithGatedLists({ limit: 1, waitMs: 200 });
    const server = app.listen(0);
    try {
      const held = request(server)
        .get('/employees')
        .set({ 'X-User': '1', 'X-Name': 'c1' })
        .then((res) => res);
      await until(() => served.length === 1);

      const other = request(server)
        .get('/employees/7/attendance')
        .set({ 'X-User': '2', 'X-Name': 'c2' })
        .then((res) => res);
      await until(() => served.length === 2);
      release('c2');
      const me = await request(server).get('/employees/me').set({ 'X-User': '1' });
      const created = await request(server).post('/employees').set({ 'X-User': '1' });
      // Another heavy path of the same caller shares its budget; the match ignores case and a trailing slash.
      const sameCaller = await request(server).get('/EMPLOYEES/7/Attendance/').set({ 'X-User': '1', 'X-Name': 'c3' });

      expect((await other).status).toBe(200);
      expect(me.status).toBe(200);
      expect(created.status).toBe(201);
      expect(sameCaller.status).toBe(429);
      release('c1');
      expect((await held).status).toBe(200);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('counts requests without a caller per client address', async () => {
    const { app, served, release } = appWithGatedLists({ limit: 1, waitMs: 0 });
    const server = app.listen(0);
    try {
      const held = request(server)
        .get('/openapi.json')
        .set({ 'X-Name': 'd1' })
        .then((res) => res);
      await until(() => served.length === 1);

      const refused = await request(server).get('/openapi.json').set({ 'X-Name': 'd2' });
      const user = request(server)
        .get('/openapi.json')
        .set({ 'X-User': '3', 'X-Name': 'd3' })
        .then((res) => res);
      await until(() => served.length === 2);
      release('d3');

      expect(refused.status).toBe(429);
      expect((await user).status).toBe(200);
      release('d1');
      expect((await held).status).toBe(200);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('frees the place of a waiting client that goes away, and the turn of one being served', async () => {
    const { app, served, closed, release } = appWithGatedLists({ limit: 1, waitMs: 5000 });
    const server = app.listen(0);
    try {
      const gone = request(server).get('/employees').set({ 'X-User': '1', 'X-Name': 'e1' }).timeout(100);
      await expect(gone).rejects.toThrow(/Timeout/);
      await until(() => closed.includes('e1'));
      // e1's client went away while being served: its turn is free again.
      const next = request(server)
        .get('/employees')
        .set({ 'X-User': '1', 'X-Name': 'e2' })
        .then((res) => res);
      await until(() => served.length === 2);
      const waiting = request(server).get('/employees').set({ 'X-User': '1', 'X-Name': 'e3' }).timeout(100);
      await expect(waiting).rejects.toThrow(/Timeout/);
      await until(() => closed.includes('e3'));
      release('e2');
      const last = request(server)
        .get('/employees')
        .set({ 'X-User': '1', 'X-Name': 'e4' })
        .then((res) => res);
      await until(() => served.length === 3);

      // e3 gave its place up: e4 got the turn e2 freed.
      expect(served).toEqual(['e1', 'e2', 'e4']);
      release('e4');
      expect((await next).status).toBe(200);
      expect((await last).status).toBe(200);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('is off with a limit of 0', async () => {
    const { app, served, release } = appWithGatedLists({ limit: 0, waitMs: 0 });
    const server = app.listen(0);
    try {
      const lists = ['f1', 'f2', 'f3'].map((name) =>
        request(server)
          .get('/employees')
          .set({ 'X-User': '1', 'X-Name': name })
          .then((res) => res),
      );
      await until(() => served.length === 3);
      for (const name of ['f1', 'f2', 'f3']) release(name);

      expect((await Promise.all(lists)).map((res) => res.status)).toEqual([200, 200, 200]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
