import type { Fixture } from './fixture';

/** One kind of request the benchmark sends, over and over, on every connection. */
export interface Scenario {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the API base path (/app/api); may depend on the seeded data. */
  path: string | ((fixture: Fixture) => string);
  headers?: Record<string, string>;
  /** Sent as JSON, with Content-Type: application/json. */
  body?: unknown;
  /** Send the benchmark admin's bearer token. */
  needsToken: boolean;
}

export const SCENARIOS: readonly Scenario[] = [
  // No database work and no token: the cost of the HTTP stack and middleware alone.
  { name: 'GET /echo', method: 'GET', path: '/echo', needsToken: false },
  // Token check plus one employee read: the cheapest authenticated request.
  { name: 'GET /employees/me', method: 'GET', path: '/employees/me', needsToken: true },
  // One employee by id, read by an admin: token check, then the record and its references.
  { name: 'GET /employees/{id}', method: 'GET', path: (fixture) => `/employees/${fixture.middleEmployeeId}`, needsToken: true },
  // A page of 50 with its total, first and deep (page 1000, or the last full page when fewer).
  { name: 'GET /employees?limit=50 (page 1)', method: 'GET', path: '/employees?limit=50', needsToken: true },
  {
    name: 'GET /employees?limit=50 (deep page)',
    method: 'GET',
    path: (fixture) => `/employees?limit=50&page=${deepPage(fixture)}`,
    needsToken: true,
  },
];

export function deepPage(fixture: Fixture): number {
  return Math.max(1, Math.min(1000, Math.floor(fixture.employees / 50)));
}
