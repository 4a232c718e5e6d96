import type { Fixture } from './fixture';

interface ScenarioBase {
  name: string;
  /** Send the benchmark admin's bearer token. */
  needsToken: boolean;
}

/** One request, repeated by every connection. */
export interface FixedScenario extends ScenarioBase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the API base path (/app/api). */
  path: string;
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
}

/** Requests sent in turn by every connection, e.g. a punch-in and then its punch-out. */
export interface VaryingScenario extends ScenarioBase {
  requests(fixture: Fixture): VaryingRequest[];
}

export type Scenario = FixedScenario | VaryingScenario;

/** The seeded employees' ids in turn, shared by every connection of a scenario. */
function roundRobin(fixture: Fixture): () => number {
  const { firstId, lastId } = fixture.employees;
  let next = 0;
  return () => firstId + (next++ % (lastId - firstId + 1));
}

export const SCENARIOS: readonly Scenario[] = [
  // No database work and no token: the cost of the HTTP stack and middleware alone.
  { name: 'GET /echo', method: 'GET', path: '/echo', needsToken: false },
  // Token check plus one employee read: the cheapest authenticated request.
  { name: 'GET /employees/me', method: 'GET', path: '/employees/me', needsToken: true },
  // An employee's month of attendance, as a mobile app's history screen asks for it, over every
  // employee in turn so that the reads spread over the whole table, not one cached corner.
  {
    name: 'attendance: GET /employees/{id}/attendance?from&to (a month)',
    needsToken: true,
    requests: (fixture) => {
      const employee = roundRobin(fixture);
      const { from, to } = fixture.month;
      return [{ method: 'GET', next: () => ({ path: `/employees/${employee()}/attendance?from=${from}&to=${to}` }) }];
    },
  },
  // Terminals punching many employees in parallel: the admin punches each employee in (at the
  // server's time) and out again. The punch-out names the next whole second, so that it is after
  // the punch-in and within the future tolerance; an employee comes round again seconds later.
  {
    name: 'attendance: POST /attendance/punch-in + punch-out pairs',
    needsToken: true,
    requests: (fixture) => {
      const nextEmployee = roundRobin(fixture);
      return [
        {
          method: 'POST',
          next: (context) => {
            context.employee = nextEmployee();
            return { path: '/attendance/punch-in', body: { employee: context.employee } };
          },
        },
        {
          method: 'POST',
          next: (context) => {
            const outTime = new Date((Math.floor(Date.now() / 1000) + 1) * 1000).toISOString();
            return { path: '/attendance/punch-out', body: { employee: context.employee, out_time: outTime } };
          },
        },
      ];
    },
  },
];
