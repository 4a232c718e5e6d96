import type { Fixture } from './fixture';

interface ScenarioBase {
  name: string;
  /** Send the benchmark admin's bearer token. */
  needsToken: boolean;
  /** Instead, each connection sends the token of a user of its own (Fixture.userTokens). */
  tokenPerConnection?: boolean;
  /** Concurrent connections, instead of --connections: 1 measures a request's own latency. */
  connections?: number;
  /** Served by a server started with this WORKERS (default 1). */
  workers?: number;
  /**
   * The ceiling its ratio is taken to: `list` (list-ceiling-server.ts, the list's own rows query
   * for page 1), by default the `/employees/me` one (ceiling-server.ts).
   */
  ceiling?: 'list';
}

/** One request, repeated by every connection. */
export interface FixedScenario extends ScenarioBase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the API base path (/app/api); may depend on the seeded data. */
  path: string | ((fixture: Fixture) => string);
  headers?: Record<string, string>;
  /** Sent as JSON, with Content-Type: application/json. */
  body?: unknown;
}

/** A request whose path and body change from one to the next. */
export interface VaryingRequest {
  method: 'GET' | 'POST';
  /**
   * The next request's path (relative to the API base path) and JSON body. `context` belongs to
   * one connection and lives through one pass over the scenario's requests.
   */
  next(context: Record<string, unknown>): { path: string; body?: unknown };
  /** Sees the response's status, with the same `context`. */
  onResponse?(status: number, context: Record<string, unknown>): void;
}

/** Requests sent in turn by every connection, e.g. a punch-in and then its punch-out. */
export interface VaryingScenario extends ScenarioBase {
  requests(fixture: Fixture): VaryingRequest[];
}

export type Scenario = FixedScenario | VaryingScenario;

/** The seeded employees' ids in turn (skipping those `skip` names), shared by every connection of a scenario. */
function roundRobin(fixture: Fixture, skip: ReadonlySet<number> = new Set()): () => number {
  const { firstId, lastId } = fixture.employees;
  const count = lastId - firstId + 1;
  let next = 0;
  return () => {
    for (let tries = 0; tries < count; tries++) {
      const id = firstId + (next++ % count);
      if (!skip.has(id)) return id;
    }
    throw new Error('Every employee has an open punch-in; seed more employees');
  };
}

function employeeCount(fixture: Fixture): number {
  return fixture.employees.lastId - fixture.employees.firstId + 1;
}

/** Page 1000 of 50, or the last full page when there are fewer employees. */
export function deepPage(fixture: Fixture): number {
  return Math.max(1, Math.min(1000, Math.floor(employeeCount(fixture) / 50)));
}

/** Half way through the attendance list in pages of 50 (page 10,000 at 1M records). */
export function deepAttendancePage(fixture: Fixture): number {
  return Math.max(1, Math.floor(fixture.attendanceRows / 50 / 2));
}

function monthlyReads(fixture: Fixture): VaryingRequest[] {
  const employee = roundRobin(fixture);
  const { from, to } = fixture.month;
  return [{ method: 'GET', next: () => ({ path: `/employees/${employee()}/attendance?from=${from}&to=${to}` }) }];
}

export const SCENARIOS: readonly Scenario[] = [
  // No database work and no token: the cost of the HTTP stack and middleware alone.
  { name: 'GET /echo', method: 'GET', path: '/echo', needsToken: false },
  // Token check plus one employee read: the cheapest authenticated request. Every connection is
  // another user asking about themselves, so no two connections look up the same token.
  { name: 'GET /employees/me', method: 'GET', path: '/employees/me', needsToken: false, tokenPerConnection: true },
  // Employees by id, read by an admin: token check, then the record and its references, over
  // every employee in turn.
  {
    name: 'GET /employees/{id}',
    needsToken: true,
    requests: (fixture) => {
      const employee = roundRobin(fixture);
      return [{ method: 'GET', next: () => ({ path: `/employees/${employee()}` }) }];
    },
  },
  // A page of 50 with its total, first and deep (page 1000, or the last full page when fewer).
  { name: 'GET /employees?limit=50 (page 1)', method: 'GET', path: '/employees?limit=50', needsToken: true, ceiling: 'list' },
  // What a directory sync asks for: three fields of every employee, page 1.
  {
    name: 'GET /employees?limit=50&fields=first_name,last_name,work_email (page 1)',
    method: 'GET',
    path: '/employees?limit=50&fields=first_name,last_name,work_email',
    needsToken: true,
    ceiling: 'list',
  },
  {
    name: 'GET /employees?limit=50 (deep page)',
    method: 'GET',
    path: (fixture) => `/employees?limit=50&page=${deepPage(fixture)}`,
    needsToken: true,
  },
  // A deep page in name order: read off the (last_name, id) index, not by sorting every row.
  {
    name: 'GET /employees?limit=50&sortField=last_name (deep page)',
    method: 'GET',
    path: (fixture) => `/employees?limit=50&sortField=last_name&page=${deepPage(fixture)}`,
    needsToken: true,
  },
  // Page 1 sorted by a field with an index (read off it, stopping at the page's end) and by one
  // without (every row's id sorted for the first 50): the cost of IceHrm's sortField on any
  // field, as one client at a time sees it. (With 64 connections the unindexed sort queues 64
  // whole-table sorts, and on SQLite, whose queries run one at a time, requests time out.)
  {
    name: 'GET /employees?limit=50&sortField=last_name (page 1, indexed), 1 connection',
    method: 'GET',
    path: '/employees?limit=50&sortField=last_name',
    needsToken: true,
    connections: 1,
  },
  {
    name: 'GET /employees?limit=50&sortField=birthday (page 1, no index), 1 connection',
    method: 'GET',
    path: '/employees?limit=50&sortField=birthday',
    needsToken: true,
    connections: 1,
  },
  // The same pages from two server processes (WORKERS=2, one per core): a page costs the server
  // most of its CPU (writing 70 kB of JSON), so one process is the first limit on a 2-core machine.
  { name: 'GET /employees?limit=50 (page 1), WORKERS=2', method: 'GET', path: '/employees?limit=50', needsToken: true, workers: 2 },
  {
    name: 'GET /employees?limit=50 (deep page), WORKERS=2',
    method: 'GET',
    path: (fixture) => `/employees?limit=50&page=${deepPage(fixture)}`,
    needsToken: true,
    workers: 2,
  },
  // The admin's whole attendance list, newest first: page 1 and a deep page half way through
  // (page 10,000 at 1M records). The deep page starts at the record the same page began with
  // when it was last served (keyset paging), instead of skipping 500,000 rows with OFFSET. One
  // client at a time: the latency of the query itself.
  {
    name: 'attendance: GET /attendance?limit=50 (page 1), 1 connection',
    method: 'GET',
    path: '/attendance?limit=50',
    needsToken: true,
    connections: 1,
  },
  {
    name: 'attendance: GET /attendance?limit=50 (deep page), 1 connection',
    method: 'GET',
    path: (fixture) => `/attendance?limit=50&page=${deepAttendancePage(fixture)}`,
    needsToken: true,
    connections: 1,
  },
  // An employee's month of attendance, as a mobile app's history screen asks for it, over every
  // employee in turn so that the reads spread over the whole table, not one cached corner.
  {
    name: 'attendance: GET /employees/{id}/attendance?from&to (a month)',
    needsToken: true,
    requests: monthlyReads,
  },
  // The same with one client at a time: the latency of the read itself, not of a queue.
  {
    name: 'attendance: GET /employees/{id}/attendance?from&to (a month), 1 connection',
    needsToken: true,
    connections: 1,
    requests: monthlyReads,
  },
  // Terminals punching many employees in parallel: the admin punches each employee in (at the
  // server's time) and out again. The punch-out names the next whole second, so that it is after
  // the punch-in and within the future tolerance; an employee comes round again seconds later.
  // A run that ends between the two leaves the employee punched in: they are not punched again.
  // Terminated employees are left out from the start: their punches are refused.
  {
    name: 'attendance: POST /attendance/punch-in + punch-out pairs',
    needsToken: true,
    requests: (fixture) => {
      const punchedIn = new Set<number>(fixture.terminatedIds);
      const nextEmployee = roundRobin(fixture, punchedIn);
      return [
        {
          method: 'POST',
          next: (context) => {
            const employee = nextEmployee();
            context.employee = employee;
            punchedIn.add(employee);
            return { path: '/attendance/punch-in', body: { employee } };
          },
        },
        {
          method: 'POST',
          next: (context) => {
            const outTime = new Date((Math.floor(Date.now() / 1000) + 1) * 1000).toISOString();
            return { path: '/attendance/punch-out', body: { employee: context.employee, out_time: outTime } };
          },
          onResponse: (status, context) => {
            if (status === 200) punchedIn.delete(context.employee as number);
          },
        },
      ];
    },
  },
];
