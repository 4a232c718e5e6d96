/** One kind of request the benchmark sends, over and over, on every connection. */
export interface Scenario {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the API base path (/app/api). */
  path: string;
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
];
